// The dashboard over plain HTTP: off without a token, the sign-in and its cookie, what an unsafe
// request from another origin gets, the pages' security headers, and a finished job's page and event
// stream, with jobs run in the server's process (the file store under TACKLE_HOME).
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { fixTemperatureScript, startHarness, type Harness } from "./harness.js";
import { assign } from "./trigger-helpers.js";
import { OWNER, REPO } from "./harness.js";

const TOKEN = "dashboard-token-0123456789abcdef";
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const baseOf = (harness: Harness) => harness.webhookUrl.replace(/\/api\/github\/webhooks$/, "");

describe("dashboard over HTTP", () => {
  it("is off without TACKLE_DASHBOARD_TOKEN", async () => {
    h = await startHarness({ script: fixTemperatureScript() });
    expect((await call(`${baseOf(h)}/dashboard`)).status).toBe(404);
    expect((await call(`${baseOf(h)}/dashboard/login`)).status).toBe(404);
  });

  it("asks for the token or the login cookie, sets the cookie only from its own origin, and never takes the token from the URL", async () => {
    h = await startHarness({ script: fixTemperatureScript(), extraEnv: { TACKLE_DASHBOARD_TOKEN: TOKEN, TACKLE_PUBLIC_URL: "https://tackle.example.test" } });
    const base = baseOf(h);
    const host = new URL(base).host;
    const signedOut = await call(`${base}/dashboard`, { headers: { accept: "text/html" } });
    expect(signedOut).toMatchObject({ status: 303, headers: { location: "/dashboard/login" } });
    expect((await call(`${base}/dashboard`)).headers["www-authenticate"]).toBe('Bearer realm="tackle dashboard"');
    expect((await call(`${base}/dashboard?token=${TOKEN}`)).status).toBe(401);
    expect((await call(`${base}/dashboard`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);

    const page = await call(`${base}/dashboard`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.body).not.toMatch(/<script>|<style>| on[a-z]+=/i);

    const form = (origin: string | undefined, token: string) =>
      call(`${base}/dashboard/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(origin === undefined ? {} : { origin }) },
        body: `token=${encodeURIComponent(token)}`,
      });
    expect((await form(undefined, TOKEN)).status).toBe(403);
    expect((await form("https://evil.example", TOKEN)).status).toBe(403);
    expect((await form(`http://${host}`, "wrong-token-0123456789")).status).toBe(401);
    const signedIn = await form(`http://${host}`, TOKEN);
    expect(signedIn).toMatchObject({ status: 303, headers: { location: "/dashboard" } });
    const setCookie = String(signedIn.headers["set-cookie"]);
    // Secure: TACKLE_PUBLIC_URL is https (the proxy in front terminates TLS).
    expect(setCookie).toMatch(/^tackle_dashboard=\d{10}\.[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/);
    expect(setCookie).not.toContain(TOKEN);
    // The public URL's origin is accepted too.
    expect((await form("https://tackle.example.test", TOKEN)).status).toBe(303);
    const cookie = setCookie.split(";")[0]!;
    expect((await call(`${base}/dashboard`, { headers: { cookie } })).status).toBe(200);
    expect((await call(`${base}/dashboard`, { headers: { cookie: `${cookie}x` } })).status).toBe(401);

    // Changing something from another site is refused even with the cookie.
    expect((await call(`${base}/dashboard/logout`, { method: "POST", headers: { cookie, origin: "https://evil.example" } })).status).toBe(403);
    const out = await call(`${base}/dashboard/logout`, { method: "POST", headers: { cookie, origin: `http://${host}` } });
    expect(out.status).toBe(303);
    expect(String(out.headers["set-cookie"])).toContain("Max-Age=0");
    // Guessing is slowed: past 20 wrong tokens a minute, every sign-in waits, the right token too.
    for (let i = 0; i < 19; i++) expect((await form(`http://${host}`, `wrong-token-${i}-0123456789`)).status).toBe(401);
    expect((await form(`http://${host}`, TOKEN)).status).toBe(429);
    // Without Redis there is no queue view.
    expect((await call(`${base}/dashboard/queues`, { headers: { cookie } })).status).toBe(404);
    // The script is a file of its own.
    const script = await call(`${base}/dashboard/static/job.js`);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("lists a job run in-process, renders its page, and ends its event stream once it is over", async () => {
    h = await startHarness({ script: fixTemperatureScript(), extraEnv: { TACKLE_DASHBOARD_TOKEN: TOKEN } });
    const base = baseOf(h);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    expect((await assign(h, issue.number)).status).toBe(200);
    await h.app.queue.idle();
    const list = await call(`${base}/dashboard`, { headers: auth });
    const link = /href="(\/dashboard\/jobs\/[^"]+)"/.exec(list.body)?.[1];
    expect(link).toBeDefined();
    expect(list.body).toContain(`${OWNER}/${REPO}#${issue.number}`);
    const page = await call(`${base}${link}`, { headers: auth });
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-live="ended"');
    expect(page.body).toContain('<span class="tool">Edit</span>');
    expect(page.body).toContain("Agent ended: task_done");
    // A finished job's stream says where it stands and ends at once.
    const events = await call(`${base}${link}/events?cursor=0`, { headers: auth });
    expect(events.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(events.body).toMatch(/event: pieces\n/);
    expect(events.body).toMatch(/event: job\ndata: \{"fields":\{"status":"done"/);
    expect(events.body.trimEnd().split("\n\n").at(-1)).toMatch(/event: end\ndata: \{\}$/);
    expect((await call(`${base}${link}/artifacts/a1`, { headers: auth })).status).toBe(404);
    expect((await call(`${base}/dashboard/jobs/nope`, { headers: auth })).status).toBe(404);
  });
});
