import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkoutNameOf, checkoutPaths, claimCheckout, removeCheckout, type CheckoutPaths } from "../../../src/workspace/checkout-paths.js";
import { processStartTime } from "../../../src/workspace/owner-record.js";

const HOUR = 3600_000;
const inUse = (owner: { pid: number }) => new Error(`in use by ${owner.pid}`);

function leaveBehind(paths: CheckoutPaths, owner: Record<string, unknown>): void {
  for (const dir of [paths.root, paths.homeDir, paths.tmpDir, paths.publishDir, paths.extensionsDir, paths.worktreesDir]) {
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
      for (const dir of [paths.root, paths.homeDir, paths.tmpDir, paths.publishDir, paths.extensionsDir, paths.worktreesDir])
        expect(existsSync(dir)).toBe(false);
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

describe("paths beside a checkout", () => {
  it("are named after it, and each one leads back to it", () => {
    const paths = checkoutPaths("/home/t/checkouts/job-1");
    expect(paths).toEqual({
      root: "/home/t/checkouts/job-1",
      metaPath: "/home/t/checkouts/job-1.json",
      homeDir: "/home/t/checkouts/job-1.home",
      tmpDir: "/home/t/checkouts/job-1.tmp",
      publishDir: "/home/t/checkouts/job-1.publish",
      extensionsDir: "/home/t/checkouts/job-1.extensions",
      worktreesDir: "/home/t/checkouts/job-1.worktrees",
    });
    for (const entry of ["job-1", "job-1.json", "job-1.home", "job-1.tmp", "job-1.publish", "job-1.extensions", "job-1.worktrees"])
      expect(checkoutNameOf(entry)).toBe("job-1");
  });

  it("are all removed with the checkout", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "tackle-remove-"));
    try {
      const paths = checkoutPaths(path.join(base, "job-2"));
      leaveBehind(paths, { pid: process.pid });
      await removeCheckout(paths);
      expect(readdirSync(base)).toEqual([]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
