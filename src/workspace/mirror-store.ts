import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { exists, removeTree } from "./fs-util.js";
import type { HostGit, RemoteInfo } from "./git-host.js";

export interface MirrorStoreOptions {
  /** `${TACKLE_HOME}/mirrors`: one bare mirror per repository, at `<host>/<owner>/<repo>.git`. */
  mirrorsDir: string;
  /** An empty git template: no hooks or info files from the system's. */
  templateDir: string;
  git: HostGit;
  logger?: Logger;
}

export interface MirrorFetch {
  /** For private repositories: sent to git as a header for this command only. */
  token?: string;
  signal?: AbortSignal;
  /** Epoch ms: a fetch that started after it is fresh enough (see PrepareOptions.freshAfter). */
  freshAfter?: number;
}

/**
 * The bare mirrors every checkout borrows its objects from. Only the host writes them; the sandbox
 * sees them read-only. Callers hold {@link mirrorLock} around `update` and whatever must see the
 * mirror as it left it.
 */
export interface MirrorStore {
  /** Where the mirror of `repoKey` (host/owner/repo) lives; throws on any other shape. */
  pathOf(repoKey: string): string;
  /** The repository key a mirror path stands for (host/owner/repo). */
  keyOf(mirror: string): string;
  /** Clones the mirror when it is missing, else fetches unless a fetch since `freshAfter` already did. */
  update(mirror: string, remote: RemoteInfo, options: MirrorFetch): Promise<{ warm: boolean }>;
  /** The remote's default branch, recorded as the mirror's HEAD; the mirror's own when the remote does not say. */
  remoteHead(mirror: string, remote: RemoteInfo, options: MirrorFetch): Promise<string>;
  /** The commit `refs/heads/<branch>` names in the mirror, or null. */
  branchSha(mirror: string, branch: string): Promise<string | null>;
  /** When a job last used the mirror (its mtime when it has no stamp), or null when it is gone. */
  lastUsed(mirror: string): Promise<number | null>;
  list(): Promise<string[]>;
  /** Removes half-made mirrors (a crash during the first clone) whose maker is gone. */
  removeHalfMade(isPidAlive: (pid: number) => Promise<boolean>): Promise<void>;
}

const LAST_USED_FILE = "tackle-last-used";
const LAST_FETCH_FILE = "tackle-last-fetch";
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The lock a mirror's writers and its evictor take. */
export function mirrorLock(mirror: string): string {
  return `${mirror}.lock`;
}

function parseRepoKey(repoKey: string): { host: string; owner: string; repo: string } {
  const parts = repoKey.replace(/\.git$/, "").split("/");
  const [host, owner, repo] = parts;
  if (parts.length !== 3 || !host || !owner || !repo || !parts.every((part) => SEGMENT.test(part) && !part.includes(".."))) {
    throw new TackleError("workspace", `invalid repository key '${repoKey}'; expected host/owner/repo`);
  }
  return { host: host.toLowerCase(), owner: owner.toLowerCase(), repo: repo.toLowerCase() };
}

export function createMirrorStore(options: MirrorStoreOptions): MirrorStore {
  const { mirrorsDir, templateDir, git, logger } = options;
  const tokenAndSignal = (o: MirrorFetch) => ({ ...(o.token ? { token: o.token } : {}), ...(o.signal ? { signal: o.signal } : {}) });

  function pathOf(repoKey: string): string {
    const key = parseRepoKey(repoKey);
    return path.join(mirrorsDir, key.host, key.owner, `${key.repo}.git`);
  }

  function keyOf(mirror: string): string {
    return path
      .relative(mirrorsDir, mirror)
      .split(path.sep)
      .join("/")
      .replace(/\.git$/, "");
  }

  async function create(mirror: string, remote: RemoteInfo, o: MirrorFetch): Promise<void> {
    await mkdir(path.dirname(mirror), { recursive: true });
    const temp = `${mirror}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      const args = ["clone", "--bare", "--quiet", `--template=${templateDir}`];
      // A local path would be hard-linked; go through the transport like a real remote does.
      if (remote.scheme === "file") args.push("--no-local");
      args.push(remote.url, temp);
      await git.run({ args, protocols: [remote.scheme], retryable: true, ...tokenAndSignal(o) });
      const repo = { gitDir: temp };
      const settings: Array<[string, string]> = [
        ["remote.origin.url", remote.url],
        ["gc.autoDetach", "false"],
        // Checkouts borrow objects from here through alternates: never prune any.
        ["gc.pruneExpire", "never"],
        ["core.logAllRefUpdates", "false"],
      ];
      for (const [key, value] of settings) await git.run({ args: ["config", key, value], repo });
      await git.run({ args: ["config", "--replace-all", "remote.origin.fetch", "+refs/heads/*:refs/heads/*"], repo });
      await git.run({ args: ["config", "--add", "remote.origin.fetch", "+refs/tags/*:refs/tags/*"], repo });
      await rename(temp, mirror);
    } catch (error) {
      await removeTree(temp);
      throw error;
    }
  }

  async function fetch(mirror: string, remote: RemoteInfo, o: MirrorFetch): Promise<void> {
    const repo = { gitDir: mirror };
    await git.run({ args: ["config", "remote.origin.url", remote.url], repo });
    await git.run({
      args: ["fetch", "--prune", "--quiet", "--no-recurse-submodules", "origin"],
      repo,
      protocols: [remote.scheme],
      retryable: true,
      ...tokenAndSignal(o),
    });
  }

  /** When the last completed fetch of `mirror` started (0: unknown). Written under the mirror's lock. */
  async function lastFetchStart(mirror: string): Promise<number> {
    const value = Number((await readFile(path.join(mirror, LAST_FETCH_FILE), "utf8").catch(() => "")).trim());
    return Number.isFinite(value) ? value : 0;
  }

  async function update(mirror: string, remote: RemoteInfo, o: MirrorFetch): Promise<{ warm: boolean }> {
    const warm = await exists(path.join(mirror, "HEAD"));
    const fetchStarted = Date.now();
    const fresh = warm && o.freshAfter !== undefined && (await lastFetchStart(mirror)) > o.freshAfter;
    if (!warm) await create(mirror, remote, o);
    else if (!fresh) await fetch(mirror, remote, o);
    if (!fresh) await writeFile(path.join(mirror, LAST_FETCH_FILE), `${fetchStarted}\n`);
    await writeFile(path.join(mirror, LAST_USED_FILE), `${Date.now()}\n`);
    return { warm };
  }

  async function remoteHead(mirror: string, remote: RemoteInfo, o: MirrorFetch): Promise<string> {
    const repo = { gitDir: mirror };
    try {
      const { stdout } = await git.run({ args: ["ls-remote", "--symref", remote.url, "HEAD"], repo, protocols: [remote.scheme], ...tokenAndSignal(o) });
      const match = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(stdout);
      if (match?.[1]) {
        await git.run({ args: ["symbolic-ref", "HEAD", `refs/heads/${match[1]}`], repo });
        return match[1];
      }
    } catch (error) {
      logger?.warn({ err: error }, "could not read the remote's HEAD; using the mirror's");
    }
    const { stdout } = await git.run({ args: ["symbolic-ref", "--short", "HEAD"], repo });
    return stdout.trim();
  }

  async function branchSha(mirror: string, branch: string): Promise<string | null> {
    const { stdout, exitCode } = await git.run({
      args: ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`],
      repo: { gitDir: mirror },
      okExitCodes: [0, 1],
    });
    return exitCode === 0 ? stdout.trim() : null;
  }

  async function lastUsed(mirror: string): Promise<number | null> {
    const text = await readFile(path.join(mirror, LAST_USED_FILE), "utf8").catch(() => null);
    const value = text === null ? Number.NaN : Number(text.trim());
    if (Number.isFinite(value)) return value;
    return (await stat(mirror).catch(() => null))?.mtimeMs ?? null;
  }

  /** Every entry at `<host>/<owner>/<entry>`. */
  async function entries(): Promise<string[]> {
    const found: string[] = [];
    for (const host of await readdir(mirrorsDir).catch(() => [] as string[])) {
      for (const owner of await readdir(path.join(mirrorsDir, host)).catch(() => [] as string[])) {
        for (const entry of await readdir(path.join(mirrorsDir, host, owner)).catch(() => [] as string[])) {
          found.push(path.join(mirrorsDir, host, owner, entry));
        }
      }
    }
    return found;
  }

  async function list(): Promise<string[]> {
    return (await entries()).filter((entry) => entry.endsWith(".git"));
  }

  async function removeHalfMade(isPidAlive: (pid: number) => Promise<boolean>): Promise<void> {
    for (const entry of await entries()) {
      const match = /\.git\.tmp-(\d+)-/.exec(path.basename(entry));
      if (match && !(await isPidAlive(Number(match[1])))) await removeTree(entry);
    }
  }

  return { pathOf, keyOf, update, remoteHead, branchSha, lastUsed, list, removeHalfMade };
}
