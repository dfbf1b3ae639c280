import { constants } from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";
import path from "node:path";
import type { WorktreeFile, WorktreeReadOptions } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";

/** How much one read takes at a time: the signal and the cap are checked between chunks. */
const CHUNK_BYTES = 256 * 1024;

/**
 * What the reader needs of the path guard: the `file_path` resolved and checked (inside the
 * worktree or a read-only directory, not in `.git`, not a device), and whether a real path is one
 * the guard would give out.
 */
export interface ReadGuard {
  resolve(filePath: string, intent: "read"): Promise<string>;
  allows(realPath: string): boolean;
  /**
   * The directory of a resolved path, opened from the worktree's (or read-only directory's) own
   * descriptor one name at a time without following a link; null where it cannot be (no /proc).
   */
  openParent?(realPath: string): Promise<FileHandle | null>;
}

/**
 * The one host-side reader of files the agent can write. The host reads with more rights than the
 * agent (as root: every file), so what it reads must be what the guard checked, and reading must
 * end: the path is resolved by the guard, then opened without following a last symlink and without
 * blocking (a FIFO swapped in opens at once and is refused by type instead of waiting forever for a
 * writer), the open file must be a regular file (not a device such as /dev/zero) whose real path the
 * guard allows, its size is capped on the descriptor and again while reading (a file that grows),
 * and reading stops when `signal` aborts. Callers run it inside the job's pause (the path guard's
 * `pausing`), so no process of the job can swap a directory of the path meanwhile.
 */
export async function readWorktreeFile(guard: ReadGuard, filePath: string, options: WorktreeReadOptions): Promise<WorktreeFile> {
  options.signal?.throwIfAborted();
  const real = await guard.resolve(filePath, "read");
  const handle = await openNoFollow(guard, filePath, real);
  if (handle === null) return { kind: "missing", path: real };
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return { kind: "directory", path: real };
    if (!info.isFile()) throw notRegular(filePath);
    await assertOpenedInside(guard, handle, filePath);
    if (info.size > options.maxBytes) return { kind: "too_large", path: real, size: info.size };
    const bytes = await readCapped(handle, options);
    return typeof bytes === "number" ? { kind: "too_large", path: real, size: bytes } : { kind: "file", path: real, bytes };
  } finally {
    await handle.close();
  }
}

async function openNoFollow(guard: ReadGuard, filePath: string, real: string): Promise<FileHandle | null> {
  let parent: FileHandle | null = null;
  try {
    // Through its directory's descriptor: a directory of the path swapped for a symlink after the
    // check is refused before root opens anything it leads to.
    parent = (await guard.openParent?.(real)) ?? null;
    const at = parent === null ? real : `/proc/self/fd/${parent.fd}/${path.basename(real)}`;
    return await open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    // The guard resolved it, so a symlink here was put there since: refused, never followed.
    if (code === "ELOOP") throw new TackleError("path_outside_worktree", `path '${filePath}' became a symlink while it was read; read a regular file`);
    throw error;
  } finally {
    await parent?.close();
  }
}

/**
 * The descriptor's own path (/proc/self/fd) must be one the guard allows: a directory of the path
 * swapped for a symlink between the guard's check and the open would show here. Without /proc
 * (not Linux) the pause is what holds.
 */
async function assertOpenedInside(guard: ReadGuard, handle: FileHandle, filePath: string): Promise<void> {
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  if (opened === null || !path.isAbsolute(opened)) return;
  if (!guard.allows(opened)) throw new TackleError("path_outside_worktree", `path '${filePath}' led outside the worktree while it was read`);
}

/** The file's bytes, or how many were read when that passed the cap (a file growing while read). */
async function readCapped(handle: FileHandle, options: WorktreeReadOptions): Promise<Buffer | number> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, options.maxBytes - total + 1));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > options.maxBytes) return total;
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total);
}

function notRegular(filePath: string): TackleError {
  return new TackleError("path_outside_worktree", `path '${filePath}' is not a regular file`);
}
