import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";

export type ReleaseLock = () => Promise<void>;

/**
 * An exclusive lock shared by every process on the machine, held by a `flock(1)` child for as long
 * as its stdin stays open. The kernel drops it when the holder dies, so there is no stale-lock
 * guesswork (pid files, ages) and no race when two waiters find the same stale lock.
 */
export async function acquireLock(lockPath: string, options: { wait: boolean; timeoutMs?: number; signal?: AbortSignal }): Promise<ReleaseLock | null> {
  await mkdir(path.dirname(lockPath), { recursive: true });
  const waitArgs = options.wait ? ["-w", String((options.timeoutMs ?? 30 * 60_000) / 1000)] : ["-n"];
  // -o: the holder (cat) does not inherit the lock fd; flock itself keeps it until cat exits.
  const child = spawn("flock", ["-x", "-o", ...waitArgs, lockPath, "sh", "-c", "echo locked; exec cat >/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { PATH: "/usr/bin:/bin" },
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const onAbort = (): void => {
    child.kill("SIGKILL");
    // The holder (cat) may already run as flock's child, and outlives it: closing its stdin ends it.
    child.stdin.end();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const locked = await new Promise<boolean>((resolve, reject) => {
      child.stdout.once("data", () => resolve(true));
      child.once("error", (error) => reject(new TackleError("workspace", `cannot run flock: ${error.message}`)));
      void exited.then(() => resolve(false));
    });
    if (options.signal?.aborted) {
      // Granted to a job that no longer wants it (or aborted before it asked): let it go at once.
      onAbort();
      await exited;
      throw new TackleError("aborted", "cancelled while waiting for a lock");
    }
    if (!locked) {
      if (!options.wait) return null;
      throw new TackleError("workspace", `timed out waiting for the lock ${lockPath}`, { retryable: true });
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  let released: Promise<void> | undefined;
  return () => {
    released ??= (async () => {
      child.stdin.end();
      await exited;
    })();
    return released;
  };
}

export async function withLock<T>(lockPath: string, fn: () => Promise<T>, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
  const release = await acquireLock(lockPath, { wait: true, ...options });
  if (!release) throw new TackleError("workspace", `could not lock ${lockPath}`, { retryable: true });
  try {
    return await fn();
  } finally {
    await release();
  }
}
