/**
 * Broken (red team of #20, second pass, sandbox surface): with TACKLE_SANDBOX=off and Tackle running
 * as root, `Read`, `Edit` and `UploadArtifact` read in the host process, as root. The first pass made
 * the writer, removeTree and ripgrep walk by descriptor, but the reader still opened the checked path
 * by name (only its last component without following a link) and refused what it had opened
 * afterwards, by the descriptor's /proc path. A process of the job that detached itself (setsid, not
 * paused) and swaps a directory of the path for a symlink right after the check therefore made root
 * *open* a file outside the worktree: the refusal came after the open. Opening is not harmless as
 * root: a FIFO's waiting writer is released (here a FIFO outside, whose writer waits in its open), a
 * watchdog device is armed by its open and reboots the host when closed unexpectedly, a tape rewinds.
 * The security model says root never resolves a link below the worktree, even one swapped in after
 * the check; the reader now opens each directory from the worktree's descriptor, as the writer does.
 *
 * The swap is made where such a process would win the race, deterministically: right after the
 * guard's last look at the path (its lstat), before the open.
 * (With a real detached swapper, `renameat2(RENAME_EXCHANGE)` in a loop under a path 400 directories deep,
 * root's open of the outside FIFO was seen in two runs of three, within 24 000 reads.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import type * as fsPromises from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { removeDir } from "../integration/workspace/helpers.js";

/** Called after each lstat the path guard makes: the test's racing process. */
const afterLstat = vi.hoisted(() => ({ hook: (_p: string): void => undefined }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const original = await importOriginal<typeof fsPromises>();
  return {
    ...original,
    lstat: async (...args: Parameters<typeof original.lstat>) => {
      try {
        return await original.lstat(...args);
      } finally {
        afterLstat.hook(String(args[0]));
      }
    },
  };
});

const { createPathGuard } = await import("../../src/workspace/path-guard.js");

/** openat's number in /proc/<pid>/syscall. */
const OPENAT = process.arch === "arm64" ? "56" : "257";

describe.runIf(process.platform === "linux")("the reader beside a process that swaps a directory right after the check", () => {
  let worktree: string;
  let outside: string;
  const writers: ChildProcess[] = [];

  beforeEach(() => {
    worktree = mkdtempSync(path.join(tmpdir(), "tackle-read-swap-"));
    outside = mkdtempSync(path.join(tmpdir(), "tackle-root-only-"));
  });
  afterEach(() => {
    afterLstat.hook = () => undefined;
    removeDir(worktree);
    removeDir(outside);
    for (const writer of writers.splice(0)) writer.kill("SIGKILL");
  });

  it("opens nothing outside the worktree, not even to refuse it", async () => {
    mkdirSync(path.join(worktree, "d"));
    writeFileSync(path.join(worktree, "d", "f"), "inside\n");
    await new Promise<void>((resolve, reject) => {
      const made = spawn("mkfifo", ["-m", "600", path.join(outside, "f")]);
      made.once("error", reject);
      made.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`))));
    });
    // A writer waiting for a reader of the outside FIFO: blocked in openat until anyone opens it,
    // then blocked in a read of its own stdin (never written), never in openat again.
    const writer = spawn("sh", ["-c", `exec 3>"$1"; read line`, "writer", path.join(outside, "f")], { stdio: ["pipe", "ignore", "ignore"] });
    writers.push(writer);
    /** Asleep in the FIFO's open, waiting for a reader (the kernel's wait_for_partner). */
    const inOpen = (): boolean => {
      const wchan = readFileSync(`/proc/${writer.pid}/wchan`, "utf8").trim();
      if (wchan !== "0" && wchan !== "") return wchan === "wait_for_partner";
      const state = readFileSync(`/proc/${writer.pid}/stat`, "utf8").split(") ")[1]?.split(" ")[0];
      return state === "S" && readFileSync(`/proc/${writer.pid}/syscall`, "utf8").split(" ")[0] === OPENAT;
    };
    while (!inOpen()) await new Promise((resolve) => setImmediate(resolve));

    const guard = createPathGuard(worktree);
    const target = path.join(guard.root, "d", "f");
    let swapped = false;
    afterLstat.hook = (p) => {
      if (swapped || p !== target) return;
      swapped = true;
      renameSync(path.join(guard.root, "d"), path.join(guard.root, "d.old"));
      symlinkSync(outside, path.join(guard.root, "d"));
    };

    const result = await guard.read("d/f", { maxBytes: 1024 }).then(
      (file) => file.kind,
      (error: Error) => error.message,
    );
    expect(swapped).toBe(true);
    // Refused either way; what matters is whether root opened the FIFO first.
    expect(result).not.toBe("file");
    // Nobody opened the FIFO: the writer still waits in its open.
    expect(inOpen()).toBe(true);
  });
});
