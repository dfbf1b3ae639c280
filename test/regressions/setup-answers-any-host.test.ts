// `tackle setup` answered any Host: a DNS-rebinding page (evil.example resolving to 127.0.0.1) could
// read the setup page, and with it the manifest flow's state, then bring its own manifest code to the
// callback, so `.env` would hold an App whose key the attacker has. Now the page answers only
// `Host: 127.0.0.1:<port>` (`localhost:<port>` is sent there), the first browser to open it gets an
// HttpOnly SameSite=Lax cookie, and only that browser sees the state or may complete the callback.
import http from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "dotenv";
import { afterEach, describe, expect, it } from "vitest";
import { setup } from "../../src/main/setup.js";
import { startFakeGitHub } from "../fakes/index.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET with the Host header a browser would send for `host` (fetch does not let a test choose it). */
function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("error", reject);
  });
}

/** `tackle setup` in this process against the fake GitHub; resolves its page's address once it serves it. */
async function startSetup() {
  const gh = await startFakeGitHub();
  cleanups.push(() => gh.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), "tackle-setup-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  let served: (local: string) => void = () => undefined;
  const local = new Promise<string>((resolve) => (served = resolve));
  const env = { GHE_HOST: new URL(gh.url).host, GHE_PROTOCOL: "http", TACKLE_PUBLIC_URL: "https://tackle.example.com" };
  const exit = setup(env, {
    dir,
    name: "Tackle Rebinding Test",
    print: (line) => {
      const match = /open (http:\/\/127\.0\.0\.1:\d+)\/ in a browser/.exec(line);
      if (match) served(match[1]!);
    },
  });
  return { gh, dir, exit, local: await local };
}

const stateIn = (html: string): string | null => /state=([0-9a-f]{32})/.exec(html)?.[1] ?? null;

describe("tackle setup's local page", () => {
  it("refuses another Host, a second browser and a callback without the first browser's cookie; the first browser completes the flow", async () => {
    const { gh, dir, exit, local } = await startSetup();
    const port = new URL(local).port;

    // A DNS-rebinding page: same socket, its own name in Host.
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`]) {
      const rebound = await get(`${local}/`, { host });
      expect(rebound.status).toBe(421);
      expect(stateIn(rebound.body)).toBeNull();
      expect(rebound.headers["set-cookie"]).toBeUndefined();
    }
    // localhost is sent to 127.0.0.1, where GitHub sends the browser back (and the cookie lives).
    const viaLocalhost = await get(`${local}/`, { host: `localhost:${port}` });
    expect(viaLocalhost.status).toBe(302);
    expect(viaLocalhost.headers.location).toBe(`${local}/`);

    // The first browser: the page, its state and the cookie.
    const page = await get(`${local}/`);
    expect(page.status).toBe(200);
    const state = stateIn(page.body);
    expect(state).not.toBeNull();
    const setCookie = page.headers["set-cookie"]?.[0] ?? "";
    expect(setCookie).toMatch(new RegExp(`^tackle_setup_${port}=[0-9a-f]{32}; HttpOnly; SameSite=Lax; Path=/$`));
    const cookie = setCookie.split(";")[0]!;
    // Another browser (or another local user) gets no state.
    const second = await get(`${local}/`);
    expect(second.status).toBe(403);
    expect(stateIn(second.body)).toBeNull();

    // GitHub registers the App and sends the browser back with a code and the state.
    const action = /<form method="post" action="([^"]+)">/.exec(page.body)![1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    const manifest = /<input type="hidden" name="manifest" value="([^"]*)">/
      .exec(page.body)![1]!
      .replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    const registered = await fetch(action, { method: "POST", body: new URLSearchParams({ manifest }), redirect: "manual" });
    expect(registered.status).toBe(302);
    const back = registered.headers.get("location")!;
    expect(new URL(back).searchParams.get("state")).toBe(state);

    // The right code and state, but not from that browser: refused, and the flow goes on.
    expect((await get(back)).status).toBe(403);
    expect((await get(back, { cookie: `tackle_setup_${port}=${"0".repeat(32)}` })).status).toBe(403);
    expect((await get(back, { cookie, host: `evil.example:${port}` })).status).toBe(421);

    const done = await get(back, { cookie });
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe(`${gh.url}/apps/tackle-rebinding-test/installations/new`);
    expect(await exit).toBe(0);
    expect(parse(await readFile(path.join(dir, ".env"), "utf8"))).toMatchObject({ APP_ID: String(gh.appId) });
  });
});
