import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLock } from "../../../src/workspace/file-lock.js";

describe("file lock", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("holds across processes and is free again once released", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tackle-lock-"));
    dirs.push(dir);
    const lockPath = path.join(dir, "repo.lock");
    const tryFromAnotherProcess = (): number | null => spawnSync("flock", ["-n", lockPath, "true"]).status;

    const release = await acquireLock(lockPath, { wait: false });
    expect(release).not.toBeNull();
    expect(tryFromAnotherProcess()).not.toBe(0);
    expect(await acquireLock(lockPath, { wait: false })).toBeNull();

    await release?.();
    expect(tryFromAnotherProcess()).toBe(0);
    const again = await acquireLock(lockPath, { wait: false });
    expect(again).not.toBeNull();
    await again?.();
  });
});
