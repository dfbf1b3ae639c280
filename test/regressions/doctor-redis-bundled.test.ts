// `tackle doctor` with REDIS_URL set failed in the built CLI with "Redis is not a constructor": it loaded
// ioredis with a dynamic import, and in the split bundle a dynamic import of a CommonJS package has only a
// default export. It also printed REDIS_URL with its password. The bundle, built as it ships, against a real Redis.
import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testRedis } from "../integration/queue/redis-server.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const PASSWORD = "bundled-doctor-password";

let dir: string;
let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
  dir = await mkdtemp(path.join(os.tmpdir(), "tackle-doctor-bundle-"));
  await run(process.execPath, [path.join(root, "scripts/build.mjs"), "--outdir", path.join(dir, "dist")], { cwd: root });
  // The bundle's one runtime external (@vscode/ripgrep) resolves from beside it, as in an install.
  await symlink(path.join(root, "node_modules"), path.join(dir, "node_modules"));
});
afterAll(async () => {
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("the built `tackle doctor` reaches Redis and prints its URL without the password", async () => {
  const url = new URL(redis.url);
  url.password = PASSWORD;
  const { stdout, stderr } = await run(process.execPath, [path.join(dir, "dist/cli.js"), "doctor"], {
    env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: url.href },
  }).catch((error: { stdout: string; stderr: string }) => error);
  expect(stderr).not.toMatch(/tackle: /);
  expect(stdout).toContain(`ok   redis: redis://:[REDACTED]@${url.host} answers PING`);
  expect(stdout + stderr).not.toContain(PASSWORD);
});
