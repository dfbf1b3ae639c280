// A job aborted while it took a repository lock (the Action stops a job whose token GitHub refuses,
// right as the mirror lock is granted) left flock's holder running: the lock stayed held, so every
// later job on the repository waited out the lock's timeout, and the Action's process never exited.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLock } from "../../src/workspace/file-lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function lockPathInTempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tackle-lock-abort-"));
  dirs.push(dir);
  return path.join(dir, "repo.lock");
}

const freeForAnotherProcess = (lockPath: string): boolean => spawnSync("flock", ["-n", lockPath, "true"]).status === 0;
const childProcesses = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "ProcessWrap" || kind === "PipeWrap").length;

/** Node closes a child's handles a tick or so after it exits. */
async function settledChildProcesses(expected: number): Promise<number> {
  for (let i = 0; i < 50 && childProcesses() !== expected; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return childProcesses();
}

describe("a lock whose acquisition is aborted", () => {
  it("is free again, and no holder process is left, when the signal was aborted before the lock was granted", async () => {
    const lockPath = lockPathInTempDir();
    const before = childProcesses();
    await expect(acquireLock(lockPath, { wait: true, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "aborted" });
    expect(freeForAnotherProcess(lockPath)).toBe(true);
    // Its process and pipes are gone too: nothing keeps an Action's process from exiting.
    expect(await settledChildProcesses(before)).toBe(before);
  });

  it("is free again when the abort comes while waiting behind another holder", async () => {
    const lockPath = lockPathInTempDir();
    const held = await acquireLock(lockPath, { wait: false });
    const controller = new AbortController();
    const waiting = acquireLock(lockPath, { wait: true, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(waiting).rejects.toMatchObject({ code: "aborted" });
    await held?.();
    expect(freeForAnotherProcess(lockPath)).toBe(true);
  });
});
