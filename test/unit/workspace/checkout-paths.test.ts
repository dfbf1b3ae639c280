import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkoutPaths, claimCheckout, type CheckoutPaths } from "../../../src/workspace/checkout-paths.js";
import { processStartTime } from "../../../src/workspace/owner-record.js";

const HOUR = 3600_000;
const inUse = (owner: { pid: number }) => new Error(`in use by ${owner.pid}`);

function leaveBehind(paths: CheckoutPaths, owner: Record<string, unknown>): void {
  for (const dir of [paths.root, paths.homeDir, paths.publishDir]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "left"), "x");
  }
  writeFileSync(paths.metaPath, JSON.stringify({ hostname: hostname(), createdAt: Date.now(), startTime: null, ...owner }));
}

describe("claimCheckout (server jobs and local runs)", () => {
  let base: string;
  let paths: CheckoutPaths;

  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), "tackle-claim-"));
    paths = checkoutPaths(path.join(base, "job-1"));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("refuses a checkout another live process owns, and leaves its files alone", async () => {
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const pid = other.pid!;
      leaveBehind(paths, { pid, startTime: await processStartTime(pid) });
      await expect(claimCheckout(paths, { jobId: "job-1" }, { staleAfterMs: HOUR, inUse })).rejects.toThrow(`in use by ${pid}`);
      expect(existsSync(path.join(paths.root, "left"))).toBe(true);
      expect(JSON.parse(readFileSync(paths.metaPath, "utf8")).pid).toBe(pid);
    } finally {
      other.kill();
    }
  });

  it("clears what a dead or stale owner left, and records this process with the caller's fields", async () => {
    for (const owner of [{ pid: 2 ** 22 + 3 }, { pid: process.ppid, createdAt: Date.now() - 2 * HOUR }]) {
      leaveBehind(paths, owner);
      await claimCheckout(paths, { jobId: "job-1", mirror: "/m" }, { staleAfterMs: HOUR, inUse });
      for (const dir of [paths.root, paths.homeDir, paths.publishDir]) expect(existsSync(dir)).toBe(false);
      expect(JSON.parse(readFileSync(paths.metaPath, "utf8"))).toMatchObject({ pid: process.pid, hostname: hostname(), jobId: "job-1", mirror: "/m" });
    }
  });

  it("takes back this process's own leftovers (a retried job)", async () => {
    leaveBehind(paths, { pid: process.pid });
    await claimCheckout(paths, { branch: "tackle/local-x" }, { staleAfterMs: HOUR, inUse });
    expect(existsSync(paths.root)).toBe(false);
    expect(JSON.parse(readFileSync(paths.metaPath, "utf8"))).toMatchObject({ pid: process.pid, branch: "tackle/local-x" });
  });
});
