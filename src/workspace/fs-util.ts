import { execa } from "execa";
import { closeSync, constants, type Dirent, existsSync, fstatSync, openSync } from "node:fs";
import { type FileHandle, lstat, open, readdir, rm, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { errorMessage, TackleError } from "../errors/index.js";
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
 * rm -rf of a tree the agent may have written. On Linux it walks the tree itself, one directory
 * open at a time ({@link removeWalking}): a tree the agent makes in a second may be thousands of
 * levels deep, which neither a recursion nor a path per level survives. As root, the host removes
 * with more rights than the writer, and a process of the job the sandbox no longer holds (one that
 * detached itself, without bubblewrap) may swap a directory for a symlink, or keep adding names,
 * while the walk is on its way: so root first makes each directory its own (owner root, mode 0700:
 * from then on no other uid adds, renames or removes a name in it), reaches every name from its
 * directory's descriptor (/proc/self/fd/N/name) and never follows a link. Elsewhere (no /proc), it
 * is fs.rm, after making directories the agent made read-only writable again.
 */
export async function removeTree(target: string): Promise<void> {
  if (existsSync("/proc/self/fd")) return removeWalking(target, process.getuid?.() === 0);
  try {
    await rm(target, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    await execa("chmod", ["-R", "u+rwx", "--", target], { reject: false });
    await rm(target, { recursive: true, force: true, maxRetries: 2 });
  }
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens `target` (absolute) without following a link in any of its components, each reached from
 * its directory's descriptor (/proc/self/fd/N/name): what the descriptor holds stays that file or
 * directory whatever is renamed or linked on its path later. Refuses a link, or the wrong kind. A
 * plain descriptor (the caller closes it), never a FileHandle: one a caller forgets is not closed by
 * the garbage collector under a sandbox still using it.
 */
export function openWithoutLinks(target: string, kind: "dir" | "file"): number {
  const names = target.split("/").filter((name) => name !== "");
  let current = openSync("/", DIRECTORY_FLAGS);
  try {
    for (const [index, name] of names.entries()) {
      const last = index === names.length - 1;
      const flags = last && kind === "file" ? constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK : DIRECTORY_FLAGS;
      const next = openSync(`/proc/self/fd/${current}/${name}`, flags);
      closeSync(current);
      current = next;
    }
    if (kind === "file" && !fstatSync(current).isFile()) throw new Error("not a regular file");
    return current;
  } catch (error) {
    closeSync(current);
    throw new TackleError(
      "workspace",
      `${target} cannot be bound into the sandbox: a link or not a ${kind === "dir" ? "directory" : "regular file"} on its path (${errorMessage(error)})`,
      {
        cause: error,
      },
    );
  }
}

/** One directory on the way down: its name in its parent, its identity and what is left of it. */
interface Level {
  readonly name: string;
  readonly dev: number;
  readonly ino: number;
  /** Names still to remove, and whether each may be a directory (an unknown type may be). */
  pending: Dirent[];
  rereads: number;
}

/** Times one directory is listed again after it was emptied, before the walk gives up on it. */
const REREADS = 20;

async function removeWalking(target: string, asRoot: boolean): Promise<void> {
  let current: FileHandle;
  try {
    current = await open(target, DIRECTORY_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code !== "ENOTDIR" && code !== "ELOOP") throw error;
    // A file or a link: removed itself, never followed.
    return unlink(target).catch((unlinkError: NodeJS.ErrnoException) => {
      if (unlinkError.code !== "ENOENT") throw unlinkError;
    });
  }
  const fail = (levels: readonly Level[], why: string): TackleError =>
    new TackleError("workspace", `could not remove ${target} (${levels.length - 1} levels down): ${why}`);
  const levels: Level[] = [];
  try {
    levels.push(await enter(current, "", asRoot));
    for (;;) {
      const level = levels[levels.length - 1] as Level;
      const at = (name: string): string => `/proc/self/fd/${current.fd}/${name}`;
      const entry = level.pending.pop();
      if (entry !== undefined) {
        const name = entry.name;
        // unlink never removes a directory, so trusting the listing's type is safe: a name swapped
        // since is listed again.
        const child = mayBeDirectory(entry) ? await open(at(name), DIRECTORY_FLAGS).catch(() => null) : null;
        if (child === null) {
          await unlink(at(name)).catch(() => undefined);
          continue;
        }
        // Down: only the child stays open.
        try {
          levels.push(await enter(child, name, asRoot));
        } catch (error) {
          await child.close();
          throw error;
        }
        await current.close();
        current = child;
        continue;
      }
      const left = await list(current);
      if (left.length > 0) {
        level.rereads += 1;
        if (level.rereads > REREADS) throw fail(levels, "something keeps writing to it");
        level.pending = left;
        continue;
      }
      if (levels.length === 1) break;
      // Up: the parent by "..", which is the directory the walk came from (checked by its identity:
      // as root no other uid can have moved it, and otherwise a mismatch stops the walk).
      const parent = await open(at(".."), DIRECTORY_FLAGS);
      levels.pop();
      const above = levels[levels.length - 1] as Level;
      const seen = await parent.stat();
      if (seen.dev !== above.dev || seen.ino !== above.ino) {
        await parent.close();
        throw fail(levels, "a directory was moved during the removal");
      }
      await current.close();
      current = parent;
      await rmdir(`/proc/self/fd/${current.fd}/${level.name}`).catch(() => undefined);
    }
  } finally {
    await current.close();
  }
  await rmdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw fail(levels, error.message);
  });
}

/**
 * Takes a directory for the removal. As root: owner root, mode 0700 (in that order, so its former
 * owner cannot change the mode back), after which no other uid changes a name in it. Otherwise
 * writable again by its owner (a directory the agent made read-only), where Tackle owns it.
 */
async function enter(handle: FileHandle, name: string, asRoot: boolean): Promise<Level> {
  if (asRoot) {
    await handle.chown(0, 0);
    await handle.chmod(0o700);
  } else {
    await handle.chmod(0o700).catch(() => undefined);
  }
  const info = await handle.stat();
  return { name, dev: info.dev, ino: info.ino, pending: await list(handle), rereads: 0 };
}

/** A directory, or a name whose type the file system did not say. */
function mayBeDirectory(entry: Dirent): boolean {
  if (entry.isDirectory()) return true;
  return !(entry.isFile() || entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice());
}

function list(handle: FileHandle): Promise<Dirent[]> {
  return readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
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
