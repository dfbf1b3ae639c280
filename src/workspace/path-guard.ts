import { constants, realpathSync } from "node:fs";
import { chown, type FileHandle, lstat, mkdir, open, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import type { FsPort, WorktreeFile, WorktreeReadOptions } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";
import { readWorktreeFile } from "./read-worktree-file.js";
import type { SandboxIdentity } from "./sandbox-plan.js";

/**
 * The FsPort: every `file_path` a tool receives is resolved here, on real paths, before the host
 * touches it. The host runs the file tools with more rights than the sandboxed shell, so a path
 * that leaves the worktree (by `..`, an absolute path, or a symlink the repository planted) or
 * reaches into `.git` is refused with a message the model can act on.
 */
export interface GuardedFs extends FsPort {
  /** A regular file's text, read as `read` reads it, up to {@link GUARDED_TEXT_MAX_BYTES}. */
  readFile(filePath: string): Promise<string>;
  /**
   * Writes a file inside the worktree, creating parent directories; new files and directories are
   * given to the sandbox user so the agent's shell can keep editing them.
   */
  writeFile(filePath: string, content: string): Promise<{ path: string; created: boolean }>;
}

const MAX_SYMLINK_DEPTH = 40;
/** `readFile`'s cap: a file the host would refuse to publish is not one it reads whole either. */
export const GUARDED_TEXT_MAX_BYTES = 10 * 1024 * 1024;
const SYSTEM_PREFIXES = ["/proc", "/dev", "/sys"];

function outside(filePath: string, root: string, detail = ""): TackleError {
  return new TackleError("path_outside_worktree", `path '${filePath}' is outside the worktree ${root}${detail}; use a path inside it`);
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

function isGitInternal(root: string, candidate: string): boolean {
  return path
    .relative(root, candidate)
    .split(path.sep)
    .some((segment) => segment.toLowerCase() === ".git");
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * realpath for a path that may not exist yet: the nearest existing ancestor is resolved and the
 * missing rest appended. A dangling symlink is followed to where it points, so a write through it
 * cannot land outside.
 */
async function realpathLoose(p: string, depth = 0): Promise<string> {
  if (depth > MAX_SYMLINK_DEPTH) throw Object.assign(new Error("too many levels of symbolic links"), { code: "ELOOP" });
  try {
    return await realpath(p);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realpathLoose(parent, depth + 1);
  const candidate = path.join(realParent, path.basename(p));
  const info = await lstat(candidate).catch(() => null);
  if (info?.isSymbolicLink()) return realpathLoose(path.resolve(realParent, await readlink(candidate)), depth + 1);
  return candidate;
}

function kindOf(info: { isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean; isSocket(): boolean }): string | null {
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  return null;
}

export interface PathGuardOptions {
  /** Owner of new files and directories (the sandbox user) when Tackle runs as root. */
  owner?: SandboxIdentity | null;
  /**
   * Host directories outside the worktree the file tools may read, never write, by absolute path:
   * the repository's skills and agents from the default branch. @defaultValue none
   */
  readOnlyDirs?: readonly string[];
  /**
   * Runs a read with the job's processes paused (the sandbox's `pausing`), so none can swap a
   * directory of the path between the check and the open. @defaultValue none (nothing to pause)
   */
  pausing?: <T>(task: () => Promise<T>) => Promise<T>;
}

/** A read-only directory as it may be named (`given`) and as it really is. */
interface ReadOnlyDir {
  given: string;
  real: string;
}

export function createPathGuard(rootPath: string, options: PathGuardOptions = {}): GuardedFs {
  const root = realpathSync(rootPath);
  const owner = options.owner ?? null;
  const readOnlyDirs: ReadOnlyDir[] = (options.readOnlyDirs ?? []).map((dir) => ({ given: path.resolve(dir), real: realpathSync(dir) }));

  async function realOf(filePath: string, absolute: string, where: string): Promise<string> {
    try {
      return await realpathLoose(absolute);
    } catch (error) {
      if (errorCode(error) === "ELOOP") {
        throw new TackleError("path_outside_worktree", `path '${filePath}' is a symlink loop; use a regular file inside ${where}`);
      }
      throw error;
    }
  }

  /** An absolute path into a read-only directory: readable where it really is inside it, never writable. */
  async function resolveReadOnly(filePath: string, absolute: string, dir: ReadOnlyDir, intent: "read" | "write"): Promise<string> {
    if (intent === "write") {
      throw new TackleError(
        "path_outside_worktree",
        `path '${filePath}' is in the repository's skills and agents (${dir.given}), which are read-only; change files inside the worktree ${root} instead`,
      );
    }
    const real = await realOf(filePath, absolute, dir.given);
    if (!isInside(dir.real, real)) throw outside(filePath, root, ` (it resolves to ${real})`);
    const info = await lstat(real).catch(() => null);
    const special = info ? kindOf(info) : null;
    if (special) throw new TackleError("path_outside_worktree", `path '${filePath}' is ${special}, not a regular file`);
    return real;
  }

  function readOnlyDirOf(absolute: string): ReadOnlyDir | undefined {
    return readOnlyDirs.find((dir) => isInside(dir.given, absolute) || isInside(dir.real, absolute));
  }

  async function resolve(filePath: string, intent: "read" | "write"): Promise<string> {
    if (typeof filePath !== "string" || filePath.trim() === "") {
      throw new TackleError("path_outside_worktree", "empty path; give a path relative to the worktree root");
    }
    if (filePath.includes("\0")) throw new TackleError("path_outside_worktree", "path contains a NUL byte");
    const absolute = path.resolve(root, filePath);
    // Only by absolute path: a relative one always means the worktree.
    const readOnly = path.isAbsolute(filePath) ? readOnlyDirOf(absolute) : undefined;
    if (readOnly) return resolveReadOnly(filePath, absolute, readOnly, intent);
    const system = SYSTEM_PREFIXES.find((prefix) => absolute === prefix || absolute.startsWith(`${prefix}/`));
    if (system && !isInside(root, absolute)) {
      throw new TackleError("path_outside_worktree", `path '${filePath}' is a system path (${system}); only files inside the worktree ${root} can be used`);
    }
    const real = await realOf(filePath, absolute, "the worktree");
    if (!isInside(root, real)) {
      const viaSymlink = isInside(root, absolute) ? ` (it is a symlink to ${real})` : "";
      throw outside(filePath, root, viaSymlink);
    }
    if (isGitInternal(root, absolute) || isGitInternal(root, real)) {
      throw new TackleError("path_outside_worktree", `path '${filePath}' is inside .git; git internals are off limits, use the git tools instead`);
    }
    const info = await lstat(real).catch(() => null);
    const special = info ? kindOf(info) : null;
    if (special) throw new TackleError("path_outside_worktree", `path '${filePath}' is ${special}, not a regular file`);
    if (intent === "write" && real === root) {
      throw new TackleError("path_outside_worktree", `path '${filePath}' is the worktree root itself; name a file inside it`);
    }
    return real;
  }

  /** Whether a real path is one `resolve` could have returned for a read. */
  function allows(real: string): boolean {
    if (readOnlyDirs.some((dir) => isInside(dir.real, real))) return true;
    return isInside(root, real) && !isGitInternal(root, real);
  }

  function read(filePath: string, readOptions: WorktreeReadOptions): Promise<WorktreeFile> {
    const task = () => readWorktreeFile({ resolve, allows, openParent }, filePath, readOptions);
    return options.pausing ? options.pausing(task) : task();
  }

  function relative(absolutePath: string): string {
    const absolute = path.resolve(root, absolutePath);
    // A file of a read-only directory is shown by its absolute path, the one that reads it again.
    if (path.isAbsolute(absolutePath) && readOnlyDirOf(absolute)) return absolute;
    const rel = path.relative(root, absolute);
    return rel === "" ? "." : rel.split(path.sep).join("/");
  }

  /**
   * The directory `dir` (a real path `resolve` gave out, inside `base`: the root or a read-only
   * directory), opened one name at a time from `base` through the parent's descriptor
   * (/proc/self/fd/N/name, an openat), never following a link, and, with `create`, made where it is
   * missing, each new directory given to the sandbox user. The host reads and writes with more rights
   * than the agent, and a process of the job the pause does not hold (one that detached itself,
   * without bubblewrap) may swap a directory of the path for a symlink after the check: that symlink
   * is then refused instead of followed, so root opens nothing outside (a device, a FIFO) even to
   * refuse it afterwards. Null without /proc (not Linux), where the pause is what holds. Without
   * `create`, a missing directory throws ENOENT.
   */
  async function openDirBelow(base: string, dir: string, create: boolean): Promise<FileHandle | null> {
    let current = await open(base, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      if ((await readlink(`/proc/self/fd/${current.fd}`).catch(() => null)) !== base) {
        await current.close();
        return null;
      }
      for (const name of path.relative(base, dir).split(path.sep).filter(Boolean)) {
        const next = await openChildDir(current, name, dir, create);
        await current.close();
        current = next;
      }
      return current;
    } catch (error) {
      await current.close().catch(() => undefined);
      throw error;
    }
  }

  async function openChildDir(parent: FileHandle, name: string, dir: string, create: boolean): Promise<FileHandle> {
    const at = `/proc/self/fd/${parent.fd}/${name}`;
    const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
    try {
      return await open(at, flags);
    } catch (error) {
      // Reading, a missing directory (or a file where one was) is a missing file, as an open by path says.
      if (!create && (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR")) throw error;
      if (errorCode(error) !== "ENOENT") throw changedWhileWritten(dir, error);
    }
    await mkdir(at).catch((error: unknown) => {
      if (errorCode(error) !== "EEXIST") throw error;
    });
    const made = await open(at, flags).catch((error: unknown) => {
      throw changedWhileWritten(dir, error);
    });
    if (owner) await made.chown(owner.uid, owner.gid);
    return made;
  }

  /** The directory of `real` (a path `resolve` gave out for a read), opened as {@link openDirBelow} does, never made. */
  async function openParent(real: string): Promise<FileHandle | null> {
    const base = readOnlyDirs.find((dir) => isInside(dir.real, real))?.real ?? root;
    if (real === base) return null;
    return openDirBelow(base, path.dirname(real), false);
  }

  function changedWhileWritten(where: string, error: unknown): unknown {
    const code = errorCode(error);
    if (code !== "ELOOP" && code !== "ENOTDIR") return error;
    return new TackleError("path_outside_worktree", `a directory of '${where}' became a symlink or a file while it was used; use a path inside the worktree`);
  }

  /** mkdir -p that hands each directory it creates to the sandbox user (without /proc only). */
  async function makeParents(dir: string): Promise<void> {
    if (dir === root || (await lstat(dir).catch(() => null))) return;
    await makeParents(path.dirname(dir));
    await mkdir(dir).catch((error: unknown) => {
      if (errorCode(error) !== "EEXIST") throw error;
    });
    if (owner) await chown(dir, owner.uid, owner.gid);
  }

  /** Where `real` is opened: by its directory's descriptor when there is one, so no link on the way is followed. */
  async function writeTarget(real: string): Promise<{ at: string; parent: FileHandle | null }> {
    const parent = await openDirBelow(root, path.dirname(real), true);
    if (parent !== null) return { at: `/proc/self/fd/${parent.fd}/${path.basename(real)}`, parent };
    await makeParents(path.dirname(real));
    return { at: real, parent: null };
  }

  /** Writes `content` into the regular file at `at`, made when missing (given to the sandbox user), truncated first. */
  async function writeOpened(filePath: string, at: string, content: string, existed: boolean): Promise<void> {
    // Non-blocking: a FIFO without a reader fails at once (ENXIO) instead of holding a host thread.
    const handle = await open(at, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644).catch((error: unknown) => {
      throw errorCode(error) === "ELOOP"
        ? new TackleError("path_outside_worktree", `path '${filePath}' became a symlink while it was written; write a regular file`)
        : error;
    });
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new TackleError("path_outside_worktree", `path '${filePath}' is not a regular file`);
      // A hard link could be a second name of a file elsewhere; the host writes with more rights than the agent.
      if (info.nlink > 1) throw new TackleError("path_outside_worktree", `path '${filePath}' is a hard link; write a regular file instead`);
      await handle.truncate(0);
      await handle.writeFile(content, "utf8");
      if (owner && !existed) await handle.chown(owner.uid, owner.gid);
    } finally {
      await handle.close();
    }
  }

  return {
    root,
    resolve,
    relative,

    read,

    async readFile(filePath: string): Promise<string> {
      const file = await read(filePath, { maxBytes: GUARDED_TEXT_MAX_BYTES });
      if (file.kind === "too_large") throw new TackleError("path_outside_worktree", `path '${filePath}' is over ${GUARDED_TEXT_MAX_BYTES} bytes`);
      if (file.kind === "missing") throw new TackleError("not_found", `path '${filePath}' does not exist`);
      if (file.kind !== "file") throw new TackleError("path_outside_worktree", `path '${filePath}' is not a regular file`);
      return file.bytes.toString("utf8");
    },

    async writeFile(filePath: string, content: string) {
      const real = await resolve(filePath, "write");
      const { at, parent } = await writeTarget(real);
      try {
        const existed = (await lstat(at).catch(() => null)) !== null;
        await writeOpened(filePath, at, content, existed);
        return { path: real, created: !existed };
      } finally {
        await parent?.close();
      }
    },
  };
}
