// `tackle setup` answered any Host: a DNS-rebinding page (evil.example resolving to 127.0.0.1) could
// read the setup page, and with it the manifest flow's state, then bring its own manifest code to the
// callback, so `.env` would hold an App whose key the attacker has. Now the page answers only
// `Host: 127.0.0.1:<port>` (`localhost:<port>` is sent there), only the address printed in the
// terminal (its `?key=`) shows the state, and the callback needs the state. No cookie is set: a browser
// sends 127.0.0.1's cookies to every port, so another local user's server would receive it.
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

/** `tackle setup` in this process against the fake GitHub; resolves the address it prints once it serves it. */
async function startSetup() {
  const gh = await startFakeGitHub();
  cleanups.push(() => gh.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), "tackle-setup-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  let served: (printed: { local: string; key: string }) => void = () => undefined;
  const printed = new Promise<{ local: string; key: string }>((resolve) => (served = resolve));
  const env = { GHE_HOST: new URL(gh.url).host, GHE_PROTOCOL: "http", TACKLE_PUBLIC_URL: "https://tackle.example.com" };
  const exit = setup(env, {
    dir,
    name: "Tackle Rebinding Test",
    print: (line) => {
      // The key is optional here so that a setup without one fails on what it serves, not on what it prints.
      const match = /open (http:\/\/127\.0\.0\.1:\d+)\/(?:\?key=([0-9a-f]{32}))? in a browser/.exec(line);
      if (match) served({ local: match[1]!, key: match[2] ?? "" });
    },
  });
  return { gh, dir, exit, ...(await printed) };
}

const stateIn = (html: string): string | null => /state=([0-9a-f]{32})/.exec(html)?.[1] ?? null;

describe("tackle setup's local page", () => {
  it("refuses another Host, a browser without the printed key and a callback without its state; the key's browser completes the flow, and no cookie is ever set", async () => {
    const { gh, dir, exit, local, key } = await startSetup();
    const port = new URL(local).port;

    // A DNS-rebinding page: same socket, its own name in Host (even with the key, which it could not know).
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`]) {
      for (const target of ["/", `/?key=${key}`]) {
        const rebound = await get(`${local}${target}`, { host });
        expect(rebound.status).toBe(421);
        expect(stateIn(rebound.body)).toBeNull();
        expect(rebound.headers["set-cookie"]).toBeUndefined();
      }
    }
    // localhost is sent to 127.0.0.1, where GitHub sends the browser back.
    const viaLocalhost = await get(`${local}/?key=${key}`, { host: `localhost:${port}` });
    expect(viaLocalhost.status).toBe(302);
    expect(viaLocalhost.headers.location).toBe(`${local}/?key=${key}`);

    // A browser (or another user of the machine) without the key: no state, no cookie.
    for (const target of ["/", `/?key=${"0".repeat(32)}`]) {
      const stranger = await get(`${local}${target}`);
      expect(stranger.status).toBe(403);
      expect(stateIn(stranger.body)).toBeNull();
      expect(stranger.headers["set-cookie"]).toBeUndefined();
    }

    // The printed address: the page with the state, and no cookie (a browser sends 127.0.0.1's cookies
    // to every port, so another local user's server would receive it).
    const page = await get(`${local}/?key=${key}`);
    expect(page.status).toBe(200);
    expect(page.headers["set-cookie"]).toBeUndefined();
    const state = stateIn(page.body);
    expect(state).not.toBeNull();

    // GitHub registers the App and sends the browser back with a code and the state.
    const action = /<form method="post" action="([^"]+)">/.exec(page.body)![1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    const manifest = /<input type="hidden" name="manifest" value="([^"]*)">/
      .exec(page.body)![1]!
      .replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    const registered = await fetch(action, { method: "POST", body: new URLSearchParams({ manifest }), redirect: "manual" });
    expect(registered.status).toBe(302);
    const back = registered.headers.get("location")!;
    expect(new URL(back).searchParams.get("state")).toBe(state);

    // The code with another state, or through another Host: refused, and the flow goes on.
    const forged = new URL(back);
    forged.searchParams.set("state", "0".repeat(32));
    expect((await get(forged.toString())).status).toBe(400);
    expect((await get(back, { host: `evil.example:${port}` })).status).toBe(421);

    const done = await get(back);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe(`${gh.url}/apps/tackle-rebinding-test/installations/new`);
    expect(await exit).toBe(0);
    expect(parse(await readFile(path.join(dir, ".env"), "utf8"))).toMatchObject({ APP_ID: String(gh.appId) });
  });
});
