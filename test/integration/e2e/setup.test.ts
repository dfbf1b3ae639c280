// `tackle setup` end to end: the local page, its form posted to the fake GitHub's "new App" page, the
// redirect with the code, the conversion, `.env`, and a `tackle server` that starts from that `.env` alone.
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "dotenv";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook, startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { CLI, runCli, shellEnv, spawnCli, type CliProcess } from "./cli-process.js";
import { tempDirIn } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(async () => {
  await readFile(CLI);
});

const tempDir = (prefix: string) => tempDirIn(cleanups, prefix);

function gheEnv(gh: FakeGitHub): Record<string, string> {
  return { GHE_HOST: new URL(gh.url).host, GHE_PROTOCOL: "http" };
}

/** The fields of the posted manifest the tests read. */
interface PostedManifest {
  name: string;
  hook_attributes: { url: string };
  [field: string]: unknown;
}

/** Starts `tackle setup` and reads its page: the form's action and the manifest it posts. */
async function startSetup(args: string[], env: Record<string, string>, cwd: string) {
  const setup = spawnCli(["setup", ...args], { env, cwd });
  cleanups.push(() => setup.stop());
  const [, local = "", key = ""] = await setup.waitFor(/open (http:\/\/127\.0\.0\.1:\d+)\/\?key=([0-9a-f]{32}) in a browser/);
  // Only the printed address (its key) shows the page with the state; no cookie is set.
  const page = await fetch(`${local}/?key=${key}`, { redirect: "manual" });
  expect(page.status).toBe(200);
  expect(page.headers.get("set-cookie")).toBeNull();
  const html = await page.text();
  const action = unescapeHtml(/<form method="post" action="([^"]+)">/.exec(html)?.[1] ?? "");
  const manifestText = unescapeHtml(/<input type="hidden" name="manifest" value="([^"]*)">/.exec(html)?.[1] ?? "");
  return { setup, local, action, manifestText, manifest: JSON.parse(manifestText) as PostedManifest, browser: {} };
}

/** What the browser does with the page's form: POST it to GitHub, which answers with a redirect. */
async function submit(action: string, manifestText: string): Promise<Response> {
  return fetch(action, { method: "POST", body: new URLSearchParams({ manifest: manifestText }), redirect: "manual" });
}

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

async function exitOf(setup: CliProcess): Promise<number | null> {
  return setup.exited();
}

describe("tackle setup (GitHub's App manifest flow)", () => {
  it("registers the App on a GitHub Enterprise Server, writes .env with mode 0600, and tackle server starts from it", async () => {
    const gh = await startFakeGitHub();
    cleanups.push(() => gh.close());
    const home = await tempDir("tackle-setup-home-");
    const dir = await tempDir("tackle-setup-dir-");
    const env = shellEnv(home, { ...gheEnv(gh), TACKLE_PUBLIC_URL: "https://tackle.example.com/" });

    const { setup, local, action, manifestText, manifest, browser } = await startSetup(["--name", "Tackle Test"], env, dir);
    // The page posts Tackle's app.yml, with the webhook URL and the way back filled in, to the GHE server's "new App" page.
    const state = new URL(action).searchParams.get("state");
    expect(action).toBe(`${gh.url}/settings/apps/new?state=${state}`);
    expect(state).toMatch(/^[0-9a-f]{32}$/);
    expect(manifest).toMatchObject({
      name: "Tackle Test",
      url: "https://github.com/tackle-bot/tackle",
      public: false,
      hook_attributes: { url: "https://tackle.example.com/api/github/webhooks", active: true },
      redirect_url: `${local}/callback`,
      default_permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" },
      default_events: ["issues", "issue_comment", "pull_request_review", "pull_request_review_comment"],
    });

    // GitHub registers it and sends the browser back with a one-time code and the state.
    const registered = await submit(action, manifestText);
    expect(registered.status).toBe(302);
    const back = new URL(registered.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(`${local}/callback`);
    expect(back.searchParams.get("state")).toBe(state);
    // A request with another state is not this setup's: refused, and the flow goes on.
    const forged = await fetch(`${local}/callback?code=${back.searchParams.get("code")}&state=${"0".repeat(32)}`, { redirect: "manual", headers: browser });
    expect(forged.status).toBe(400);
    const done = await fetch(back, { redirect: "manual", headers: browser });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(`${gh.url}/apps/tackle-test/installations/new`);
    expect(await exitOf(setup)).toBe(0);
    expect(setup.output()).toContain('Registered the GitHub App "Tackle Test"');

    // .env: what GitHub returned, readable by the owner only.
    const envPath = path.join(dir, ".env");
    expect((await stat(envPath)).mode & 0o777).toBe(0o600);
    const written = await readFile(envPath, "utf8");
    expect(gh.appSlug).toBe("tackle-test");
    expect(parse(written)).toEqual({
      APP_ID: String(gh.appId),
      PRIVATE_KEY: gh.privateKeyPem,
      WEBHOOK_SECRET: gh.webhookSecret,
      ...gheEnv(gh),
    });
    expect(gh.webhookSecret).not.toBe("fake-webhook-secret");
    // The conversion went to the GHE server's REST API, without a credential.
    const conversion = gh.requests().find((r) => r.route === "POST /app-manifests/{code}/conversions");
    expect(conversion).toMatchObject({ status: 201, path: `/api/v3/app-manifests/${back.searchParams.get("code")}/conversions` });
    expect(conversion?.token).toBeUndefined();

    // The code works once.
    const again = await fetch(`${gh.apiUrl}/app-manifests/${back.searchParams.get("code")}/conversions`, { method: "POST" });
    expect(again.status).toBe(404);

    // tackle server in that directory: the App, its key, its secret and the GHE server all come from .env.
    const server = spawnCli(["server"], {
      env: shellEnv(home, { PORT: "0", TACKLE_HOME: home, ANTHROPIC_API_KEY: "sk-ant-unused", TACKLE_SANDBOX: "off", LOG_LEVEL: "warn" }),
      cwd: dir,
    });
    cleanups.push(() => server.stop());
    const [, port] = await server.waitFor(/listening on port (\d+)/);
    expect(server.output()).toContain(`read ${envPath}: APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL`);
    expect(
      gh
        .requests()
        .filter((r) => r.path === "/api/v3/app")
        .at(-1),
    ).toMatchObject({ status: 200, login: "tackle-test" });
    const url = `http://127.0.0.1:${port}/api/github/webhooks`;
    const ping = { zen: "Keep it logically awesome.", hook_id: 1, installation: { id: 1 } };
    expect((await sendWebhook({ url, secret: gh.webhookSecret, event: "ping", payload: ping })).status).toBe(200);
    const stale = await sendWebhook({ url, secret: "fake-webhook-secret", event: "ping", payload: ping });
    expect(stale.status).toBeGreaterThanOrEqual(400);
    expect(stale.status).toBeLessThan(500);

    // And setup never writes over an existing .env.
    const refused = await runCli(["setup"], { env, cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${envPath} already exists, and setup never overwrites it`);
    expect(await readFile(envPath, "utf8")).toBe(written);
  });

  it("for an organization, through a smee.io channel: the org's page, the proxy as webhook URL, and WEBHOOK_PROXY_URL in .env", async () => {
    const gh = await startFakeGitHub({ appName: "Someone else's" });
    cleanups.push(() => gh.close());
    const home = await tempDir("tackle-setup-home-");
    const dir = await tempDir("tackle-setup-dir-");
    const proxy = "https://smee.io/tackleDevChannel";
    const env = shellEnv(home, { ...gheEnv(gh), WEBHOOK_PROXY_URL: proxy, TACKLE_PUBLIC_URL: "https://tackle.example.com" });

    const { setup, action, manifestText, manifest, browser } = await startSetup(["--org", "acme"], env, dir);
    expect(action).toMatch(new RegExp(`^${gh.url}/organizations/acme/settings/apps/new\\?state=[0-9a-f]{32}$`));
    expect(manifest.name).toBe("Tackle");
    expect(manifest.hook_attributes.url).toBe(proxy);
    const registered = await submit(action, manifestText);
    expect(registered.status).toBe(302);
    expect((await fetch(registered.headers.get("location") ?? "", { redirect: "manual", headers: browser })).status).toBe(302);
    expect(await exitOf(setup)).toBe(0);
    expect(parse(await readFile(path.join(dir, ".env"), "utf8"))).toMatchObject({ APP_ID: String(gh.appId), WEBHOOK_PROXY_URL: proxy });
    expect(gh.state.users.get("acme")?.type).toBe("Organization");
  });

  it("fails clearly: no webhook URL, a name GitHub already has, a code GitHub does not know", async () => {
    const gh = await startFakeGitHub();
    cleanups.push(() => gh.close());
    const home = await tempDir("tackle-setup-home-");
    const dir = await tempDir("tackle-setup-dir-");

    const nowhere = await runCli(["setup"], { env: shellEnv(home, gheEnv(gh)), cwd: dir });
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain("set TACKLE_PUBLIC_URL");

    const badPort = await runCli(["setup", "--port", "http"], { env: shellEnv(home, gheEnv(gh)), cwd: dir });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("--port must be a port number");

    const env = shellEnv(home, { ...gheEnv(gh), TACKLE_PUBLIC_URL: "https://tackle.example.com" });
    const { setup, local, action, manifestText, browser } = await startSetup([], env, dir);
    // The fake GitHub's own App is called Tackle: GitHub's form refuses the name and the browser stays there.
    const taken = await submit(action, manifestText);
    expect(taken.status).toBe(422);
    expect(await taken.text()).toContain("Name is already in use");
    // A code GitHub never issued (or one used or expired): the page and the command say so; no .env.
    const state = new URL(action).searchParams.get("state");
    const bogus = await fetch(`${local}/callback?code=0000&state=${state}`, { redirect: "manual", headers: browser });
    expect(bogus.status).toBe(502);
    expect(await bogus.text()).toContain("valid once, for one hour");
    expect(await exitOf(setup)).toBe(1);
    expect(setup.output()).toContain("GitHub does not know this manifest code");
    await expect(stat(path.join(dir, ".env"))).rejects.toThrow(/ENOENT/);

    // An existing .env, even an empty one, is refused before anything is served.
    await writeFile(path.join(dir, ".env"), "");
    const refused = await runCli(["setup"], { env, cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already exists");
  });
});
