import { execa } from "execa";
import { constants, existsSync } from "node:fs";
import { type FileHandle, lstat, open, readdir, rm, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { SandboxIdentity } from "./sandbox-plan.js";

/** Whether anything (a dangling symlink included) is at `p`. */
export async function exists(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => null)) !== null;
}

/** Disk usage of a tree in bytes (allocated blocks), never following symlinks. */
export async function diskUsage(root: string): Promise<number> {
  const info = await lstat(root).catch(() => null);
  if (!info) return 0;
  let total = info.blocks * 512;
  if (!info.isDirectory()) return total;
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const entry of entries) total += await diskUsage(path.join(root, entry));
  return total;
}

/**
 * rm -rf of a tree the agent may have written. As root, the host removes with more rights than the
 * writer, and a process of the job the sandbox no longer holds (one that detached itself, without
 * bubblewrap) may swap a directory for a symlink while the walk is on its way: so root reaches every
 * name from its directory's descriptor (/proc/self/fd/N/name) and never follows a link (see
 * {@link removeBelow}). Otherwise, it also copes with directories the agent made read-only.
 */
export async function removeTree(target: string): Promise<void> {
  if (process.getuid?.() === 0 && existsSync("/proc/self/fd")) return removeAsRoot(target);
  try {
    await rm(target, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    await execa("chmod", ["-R", "u+rwx", "--", target], { reject: false });
    await rm(target, { recursive: true, force: true, maxRetries: 2 });
  }
}

async function removeAsRoot(target: string): Promise<void> {
  for (let round = 0; round < REMOVE_ROUNDS; round += 1) {
    let top: FileHandle;
    try {
      top = await open(target, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "ENOTDIR" && code !== "ELOOP") throw error;
      // A file or a link: removed itself, never followed.
      return unlink(target).catch((unlinkError: NodeJS.ErrnoException) => {
        if (unlinkError.code !== "ENOENT") throw unlinkError;
      });
    }
    try {
      await removeBelow(top, target);
    } finally {
      await top.close();
    }
    // Only the emptied top by path: a name added to it meanwhile is removed by the next round.
    const removed = await rmdir(target).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return true;
        if (error.code === "ENOTEMPTY" || error.code === "EEXIST") return false;
        throw error;
      },
    );
    if (removed) return;
  }
  throw new TackleError("workspace", `could not remove ${target}: something keeps writing to it`);
}

/** Rounds over one directory before giving up on a writer that keeps adding to it. */
const REMOVE_ROUNDS = 20;

/**
 * Empties the directory open as `dir`: each entry is opened from `dir`'s descriptor as a directory
 * without following a link (emptied the same way, then removed) or else unlinked, never resolved
 * through a symlink, whatever is swapped in between.
 */
async function removeBelow(dir: FileHandle, where: string): Promise<void> {
  const at = (name: string): string => `/proc/self/fd/${dir.fd}/${name}`;
  for (let round = 0; round < REMOVE_ROUNDS; round += 1) {
    const names = await readdir(`/proc/self/fd/${dir.fd}`);
    if (names.length === 0) return;
    for (const name of names) {
      const child = await open(at(name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
      if (child === null) {
        await unlink(at(name)).catch(() => undefined);
        continue;
      }
      try {
        await removeBelow(child, path.join(where, name));
      } finally {
        await child.close();
      }
      await rmdir(at(name)).catch(() => undefined);
    }
  }
  throw new TackleError("workspace", `could not empty ${where}: something keeps writing to it`);
}

/** chown -R without ever following a symlink (a repository may contain one to /etc/shadow). */
export async function chownTree(target: string, owner: SandboxIdentity): Promise<void> {
  const result = await execa("chown", ["-R", "-P", "-h", `${owner.uid}:${owner.gid}`, "--", target], {
    reject: false,
    extendEnv: false,
    env: { PATH: "/usr/bin:/bin" },
  });
  if (result.exitCode !== 0) throw new TackleError("workspace", `chown of ${target} failed: ${String(result.stderr)}`);
}

/**
 * Clears the mode bits git does not track (setuid, setgid, sticky, group- and other-writable) on
 * everything under `root` but `skip`, so a recycled checkout carries none of them over.
 */
export async function clearModeBits(root: string, skip: string): Promise<void> {
  const result = await execa(
    "find",
    [root, "-path", skip, "-prune", "-o", "!", "-type", "l", "-perm", "/7022", "-exec", "chmod", "u-s,g-s,-t,go-w", "{}", "+"],
    {
      reject: false,
      extendEnv: false,
      env: { PATH: "/usr/bin:/bin" },
    },
  );
  if (result.exitCode !== 0) throw new TackleError("workspace", `could not clear mode bits in ${root}: ${String(result.stderr)}`);
}
