// The login form counts wrong tokens (20 a minute, from anyone) and then answers 429, but it looked
// at the count before reading the form's body and added to it only after: posts whose bodies arrive
// together (headers first on many connections, then every body at once) all passed the count before
// any of them was compared, so one burst tried as many tokens as it had connections (60 here).
//
// Fix: check the count after the body is read, in the same step as the comparison and the count.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileJobStore } from "../../src/jobs/file-job-store.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createDashboard, type Dashboard } from "../../src/web/dashboard/create-dashboard.js";

const TOKEN = "dashboard-token-0123456789abcdef";
let home: string;
let dashboard: Dashboard;
let server: http.Server;
let base: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-guesses-"));
  dashboard = createDashboard({ token: TOKEN, publicUrl: null, store: createFileJobStore({ home }), logger: silentLogger });
  server = http.createServer((req, res) => dashboard.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await dashboard.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(home, { recursive: true, force: true });
});

const guess = (n: number) => `wrong-token-${String(n).padStart(20, "0")}`;

describe("guessing the dashboard token through the form", () => {
  it("does not let form posts whose bodies arrive together get past the count", async () => {
    // Each request's headers first; once the server has them all waiting for their bodies, the bodies.
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const posts = Array.from({ length: 60 }, (_, n) => {
      const body = `token=${guess(n)}`;
      const req = http.request(`${base}/dashboard/login`, {
        method: "POST",
        agent,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length), origin: base },
      });
      req.flushHeaders();
      const status = new Promise<number>((resolve, reject) => {
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
      });
      return { req, body, status };
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const post of posts) post.req.end(post.body);
    const statuses = await Promise.all(posts.map((post) => post.status));
    agent.destroy();
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(20);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(40);
  });
});
