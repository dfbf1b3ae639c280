import { createHash, randomBytes } from "node:crypto";
import { chown, mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { acquireLock, withLock } from "./file-lock.js";
import { chownTree, clearModeBits, diskUsage, exists, removeTree } from "./fs-util.js";
import {
  assertPushAllowed,
  createHostGit,
  parseRemoteUrl,
  validateBranchName,
  type GitRepoLocation,
  type RemoteInfo,
} from "./git-host.js";
import { createCheckoutReader } from "./git-port.js";
import { createPublishRepo, verifiedTip, type PublishRepo } from "./publish-repo.js";
import { currentOwner, isCurrentProcess, isOwnerAlive, parseOwnerRecord, type OwnerRecord } from "./owner-record.js";
import { sandboxOwner, type SandboxMode } from "./sandbox.js";
import { assemblePorts, DEFAULT_AUTHOR, type CommitAuthor, type Workspace } from "./workspace.js";

export interface PrepareOptions {
  jobId: string;
  /** The real remote, without credentials (https://github.com/owner/repo.git). */
  remoteUrl: string;
  /** host/owner/repo key */
  repoKey: string;
  /** For private repositories: sent to git as a header for the fetch only. */
  token?: string | (() => Promise<string>);
  branch: string;
  /** @defaultValue the remote's HEAD */
  baseBranch?: string;
  /** "existing": continue `branch` when the remote has it; "base": a fresh branch from the base tip. */
  startFrom: "base" | "existing";
  signal?: AbortSignal;
  sandbox: SandboxMode;
  /** Branches besides `tackle/...` that may be pushed (the pull request head being worked on). */
  allowedPushBranches?: readonly string[];
  /** @defaultValue {@link DEFAULT_AUTHOR} */
  author?: CommitAuthor;
  /**
   * Epoch ms of the trigger (the job's enqueue time): a fetch of the mirror that started after it
   * already holds everything the trigger could have meant, so a burst of jobs fetches once.
   * @defaultValue always fetch
   */
  freshAfter?: number;
}

export interface RepoCacheOptions {
  /** TACKLE_HOME */
  home: string;
  logger?: Logger;
  /** Disk budget for mirrors; least recently used ones are evicted past it. @defaultValue unlimited */
  maxBytes?: number;
  /** Checkouts older than this are stale even if their owner seems alive. @defaultValue 24 */
  staleAfterHours?: number;
  /**
   * Finished sandboxed checkouts kept per repository for later jobs to recycle (reset to a fresh
   * clone's state, rewriting only the files that differ); 0 removes every checkout at dispose.
   * @defaultValue 2
   */
  recycledPerRepo?: number;
}

export interface RepoCacheStats {
  mirrors: Array<{ repoKey: string; path: string; bytes: number; lastUsedAt: number | null }>;
  checkouts: Array<{ jobId: string; path: string; pid: number | null; alive: boolean; createdAt: number | null }>;
  mirrorBytes: number;
  maxBytes: number | null;
}

export interface RepoCache {
  prepare(options: PrepareOptions): Promise<Workspace>;
  /** Removes checkouts whose owner is gone or that are older than staleAfterHours, and half-made mirrors. */
  pruneStale(): Promise<void>;
  stats(): Promise<RepoCacheStats>;
}

interface CheckoutMeta extends OwnerRecord {
  jobId: string;
  mirror: string;
}

const LAST_USED_FILE = "tackle-last-used";
const LAST_FETCH_FILE = "tackle-last-fetch";
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function parseRepoKey(repoKey: string): { host: string; owner: string; repo: string } {
  const parts = repoKey.replace(/\.git$/, "").split("/");
  const [host, owner, repo] = parts;
  if (parts.length !== 3 || !host || !owner || !repo || !parts.every((part) => SEGMENT.test(part) && !part.includes(".."))) {
    throw new TackleError("workspace", `invalid repository key '${repoKey}'; expected host/owner/repo`);
  }
  return { host: host.toLowerCase(), owner: owner.toLowerCase(), repo: repo.toLowerCase() };
}

/** A directory name for a job id: the id itself when it is tame, else a slug plus a hash. */
export function checkoutName(jobId: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/.test(jobId)) return jobId;
  const slug = jobId.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+/, "").slice(0, 60);
  return `${slug || "job"}-${createHash("sha256").update(jobId).digest("hex").slice(0, 12)}`;
}

async function resolveToken(token: PrepareOptions["token"]): Promise<string | undefined> {
  return typeof token === "function" ? token() : token;
}

export function createRepoCache(options: RepoCacheOptions): RepoCache {
  const home = path.resolve(options.home);
  const logger = options.logger;
  const mirrorsDir = path.join(home, "mirrors");
  const checkoutsDir = path.join(home, "checkouts");
  const gitHome = path.join(home, "git-home");
  const templateDir = path.join(gitHome, "empty-template");
  const recycledDir = path.join(home, "recycled");
  const staleAfterMs = (options.staleAfterHours ?? 24) * 3600_000;
  const recycledPerRepo = options.recycledPerRepo ?? 2;
  const git = createHostGit({ gitHome, ...(logger ? { logger } : {}) });

  async function ensureDirs(): Promise<void> {
    for (const dir of [mirrorsDir, checkoutsDir, templateDir]) await mkdir(dir, { recursive: true, mode: 0o755 });
    await mkdir(recycledDir, { recursive: true, mode: 0o700 });
  }

  function mirrorPathOf(repoKey: string): string {
    const key = parseRepoKey(repoKey);
    return path.join(mirrorsDir, key.host, key.owner, `${key.repo}.git`);
  }

  async function readMeta(metaPath: string): Promise<CheckoutMeta | null> {
    const text = await readFile(metaPath, "utf8").catch(() => null);
    if (text === null) return null;
    const owner = parseOwnerRecord(text);
    if (!owner) return null;
    const raw = JSON.parse(text) as Partial<CheckoutMeta>;
    return { ...owner, jobId: String(raw.jobId ?? ""), mirror: String(raw.mirror ?? "") };
  }

  /** Takes the checkout directory for a job, clearing one left by a dead owner (or by this process). */
  async function claimCheckout(name: string, jobId: string, mirror: string): Promise<{ dir: string; metaPath: string; homeDir: string; publishDir: string }> {
    const dir = path.join(checkoutsDir, name);
    const metaPath = `${dir}.json`;
    const homeDir = `${dir}.home`;
    const publishDir = `${dir}.publish`;
    const meta = await readMeta(metaPath);
    if (meta && !isCurrentProcess(meta) && (await isOwnerAlive(meta, staleAfterMs))) {
      throw new TackleError("workspace", `job ${jobId} already has a live checkout at ${dir} (pid ${meta.pid})`, { retryable: true });
    }
    await removeTree(dir);
    await removeTree(homeDir);
    await removeTree(publishDir);
    const record: CheckoutMeta = { ...(await currentOwner()), jobId, mirror };
    await writeFile(metaPath, JSON.stringify(record), { mode: 0o644 });
    return { dir, metaPath, homeDir, publishDir };
  }

  async function createMirror(mirror: string, remote: RemoteInfo, token: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    await mkdir(path.dirname(mirror), { recursive: true });
    const temp = `${mirror}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      const args = ["clone", "--bare", "--quiet", `--template=${templateDir}`];
      // A local path would be hard-linked; go through the transport like a real remote does.
      if (remote.scheme === "file") args.push("--no-local");
      args.push(remote.url, temp);
      await git.run({ args, protocols: [remote.scheme], retryable: true, ...(token ? { token } : {}), ...(signal ? { signal } : {}) });
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

  async function fetchMirror(mirror: string, remote: RemoteInfo, token: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    const repo = { gitDir: mirror };
    await git.run({ args: ["config", "remote.origin.url", remote.url], repo });
    await git.run({
      args: ["fetch", "--prune", "--quiet", "--no-recurse-submodules", "origin"],
      repo,
      protocols: [remote.scheme],
      retryable: true,
      ...(token ? { token } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  async function remoteHead(mirror: string, remote: RemoteInfo, token: string | undefined, signal: AbortSignal | undefined): Promise<string> {
    const repo = { gitDir: mirror };
    try {
      const { stdout } = await git.run({
        args: ["ls-remote", "--symref", remote.url, "HEAD"],
        repo,
        protocols: [remote.scheme],
        ...(token ? { token } : {}),
        ...(signal ? { signal } : {}),
      });
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

  async function refSha(repo: GitRepoLocation, ref: string): Promise<string | null> {
    const { stdout, exitCode } = await git.run({ args: ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], repo, okExitCodes: [0, 1] });
    return exitCode === 0 ? stdout.trim() : null;
  }

  /** When the last completed fetch of `mirror` started (0: unknown). Written under the mirror's lock. */
  async function lastFetchStart(mirror: string): Promise<number> {
    const value = Number((await readFile(path.join(mirror, LAST_FETCH_FILE), "utf8").catch(() => "")).trim());
    return Number.isFinite(value) ? value : 0;
  }

  async function touchLastUsed(mirror: string): Promise<void> {
    await writeFile(path.join(mirror, LAST_USED_FILE), `${Date.now()}\n`);
  }

  async function lastUsed(mirror: string): Promise<number | null> {
    const text = await readFile(path.join(mirror, LAST_USED_FILE), "utf8").catch(() => null);
    const value = text === null ? Number.NaN : Number(text.trim());
    if (Number.isFinite(value)) return value;
    return (await stat(mirror).catch(() => null))?.mtimeMs ?? null;
  }

  async function listMirrors(): Promise<string[]> {
    const found: string[] = [];
    for (const host of await readdir(mirrorsDir).catch(() => [] as string[])) {
      for (const owner of await readdir(path.join(mirrorsDir, host)).catch(() => [] as string[])) {
        for (const repo of await readdir(path.join(mirrorsDir, host, owner)).catch(() => [] as string[])) {
          if (repo.endsWith(".git")) found.push(path.join(mirrorsDir, host, owner, repo));
        }
      }
    }
    return found;
  }

  async function listCheckoutMetas(): Promise<Array<{ name: string; meta: CheckoutMeta | null }>> {
    const entries = await readdir(checkoutsDir).catch(() => [] as string[]);
    const names = new Set(entries.map((entry) => entry.replace(/\.(json|home|publish)$/, "")));
    const result: Array<{ name: string; meta: CheckoutMeta | null }> = [];
    for (const name of names) result.push({ name, meta: await readMeta(path.join(checkoutsDir, `${name}.json`)) });
    return result;
  }

  async function mirrorsInUse(): Promise<Set<string>> {
    const used = new Set<string>();
    for (const { meta } of await listCheckoutMetas()) {
      if (meta && (await isOwnerAlive(meta, staleAfterMs))) used.add(meta.mirror);
    }
    return used;
  }

  function recyclePool(mirror: string): string {
    return path.join(recycledDir, createHash("sha256").update(mirror).digest("hex").slice(0, 16));
  }

  /** Moves a finished job's checkout aside for the next job of its repository; false when the pool is full. */
  async function park(root: string, mirror: string): Promise<boolean> {
    if (recycledPerRepo <= 0) return false;
    const pool = recyclePool(mirror);
    await mkdir(pool, { recursive: true, mode: 0o700 });
    if ((await readdir(pool)).length >= recycledPerRepo) return false;
    await rename(root, path.join(pool, `${Date.now()}-${randomBytes(4).toString("hex")}`));
    return true;
  }

  /** Takes a parked checkout of `mirror` (the newest) into `dir`; false when there is none. */
  async function unpark(mirror: string, dir: string): Promise<boolean> {
    const pool = recyclePool(mirror);
    for (const entry of (await readdir(pool).catch(() => [] as string[])).sort().reverse()) {
      // Another process may take the same one first: rename is atomic, so only one of us gets it.
      if (await rename(path.join(pool, entry), dir).then(() => true, () => false)) return true;
    }
    return false;
  }

  /**
   * Turns an earlier job's checkout into what a fresh clone at `sha` would be, rewriting only the
   * files that differ: a new `.git` cloned from the mirror (so none of its refs, stash, reflogs,
   * objects, config, hooks or info files survive), untracked and ignored files removed, and every
   * tracked file compared byte for byte with its blob (never by the stat data the earlier job could
   * forge, nor through attributes that would let a changed file compare equal) and left to be
   * rewritten when it differs. The caller then checks out `sha` with -f.
   */
  async function resetParked(dir: string, mirror: string, sha: string): Promise<void> {
    const gitDir = path.join(dir, ".git");
    await removeTree(gitDir);
    const fresh = path.join(recycledDir, `new-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      await git.run({ args: ["clone", "--shared", "--no-checkout", "--quiet", `--template=${templateDir}`, mirror, fresh], protocols: ["file"] });
      await rename(path.join(fresh, ".git"), gitDir);
    } finally {
      await removeTree(fresh);
    }
    const repo = { gitDir, workTree: dir };
    await git.run({ args: ["read-tree", sha], repo });
    await git.run({ args: ["clean", "-q", "-ffdx"], repo });
    const files: string[] = [];
    for (const entry of (await git.run({ args: ["ls-files", "-s", "-z"], repo })).stdout.split("\0")) {
      const [meta = "", file = ""] = entry.split("\t");
      if (file === "") continue;
      // clean leaves submodule directories alone: empty them, as in a fresh clone.
      if (meta.startsWith("160000 ")) {
        await removeTree(path.join(dir, file));
        await mkdir(path.join(dir, file), { recursive: true });
      } else files.push(file);
    }
    // Files a checkout converts (eol=crlf, ident, working-tree-encoding) cannot be compared with
    // their blob byte for byte: remove them, so the checkout writes them anew.
    if (files.some((file) => path.posix.basename(file) === ".gitattributes")) {
      for (const file of await convertedFiles(repo, files)) await removeTree(path.join(dir, file));
    }
    // Every other attribute is switched off for the comparison: the index has no stat data yet, so
    // each file is hashed as it is on disk and compared with its blob; exit 1 = some differ.
    const attributes = path.join(gitDir, "info", "attributes");
    await mkdir(path.dirname(attributes), { recursive: true });
    await writeFile(attributes, "* -text -eol -crlf -ident -filter -working-tree-encoding\n");
    try {
      await git.run({ args: ["update-index", "-q", "--refresh"], repo, okExitCodes: [0, 1] });
    } finally {
      await removeTree(path.dirname(attributes));
    }
    await clearModeBits(dir, gitDir);
  }

  /** Which of `files` a checkout would not write byte for byte as their blob, by the index's attributes. */
  async function convertedFiles(repo: GitRepoLocation, files: readonly string[]): Promise<string[]> {
    const { stdout } = await git.run({
      args: ["check-attr", "--cached", "-z", "--stdin", "eol", "ident", "working-tree-encoding"],
      repo,
      input: `${files.join("\0")}\0`,
    });
    const fields = stdout.split("\0");
    const converted = new Set<string>();
    for (let i = 0; i + 2 < fields.length; i += 3) {
      const [file = "", attribute, value] = [fields[i], fields[i + 1], fields[i + 2]];
      const applies =
        (attribute === "eol" && value === "crlf") ||
        (attribute === "ident" && value === "set") ||
        (attribute === "working-tree-encoding" && value !== "unspecified" && value !== "unset");
      if (applies) converted.add(file);
    }
    return [...converted];
  }

  /** A parked checkout of this mirror reset to `sha` in `dir`, or false (then `dir` does not exist). */
  async function reuseParked(mirror: string, dir: string, sha: string): Promise<boolean> {
    if (!(await unpark(mirror, dir))) return false;
    try {
      await resetParked(dir, mirror, sha);
      return true;
    } catch (error) {
      logger?.warn({ err: error, dir }, "could not recycle a checkout; cloning afresh");
      await removeTree(dir);
      return false;
    }
  }

  let budgetRun: Promise<void> = Promise.resolve();

  /** One eviction pass at a time in this process; a caller awaits any pass already running. */
  function enforceBudget(): Promise<void> {
    budgetRun = budgetRun.catch(() => undefined).then(evictOverBudget);
    return budgetRun;
  }

  /** Evicts least recently used mirrors past the budget; skips mirrors a live checkout borrows from or that are locked. */
  async function evictOverBudget(): Promise<void> {
    if (options.maxBytes === undefined) return;
    const mirrors = await Promise.all(
      (await listMirrors()).map(async (mirror) => ({ mirror, bytes: await diskUsage(mirror), lastUsedAt: (await lastUsed(mirror)) ?? 0 })),
    );
    let total = mirrors.reduce((sum, entry) => sum + entry.bytes, 0);
    if (total <= options.maxBytes) return;
    const inUse = await mirrorsInUse();
    for (const entry of mirrors.sort((a, b) => a.lastUsedAt - b.lastUsedAt)) {
      if (total <= options.maxBytes) break;
      if (inUse.has(entry.mirror)) continue;
      const release = await acquireLock(`${entry.mirror}.lock`, { wait: false });
      if (!release) continue;
      try {
        logger?.info({ mirror: entry.mirror, bytes: entry.bytes }, "evicting mirror (disk budget)");
        await removeTree(recyclePool(entry.mirror));
        await removeTree(entry.mirror);
        total -= entry.bytes;
      } finally {
        await release();
      }
    }
  }

  async function prepare(o: PrepareOptions): Promise<Workspace> {
    const started = Date.now();
    await ensureDirs();
    const remote = parseRemoteUrl(o.remoteUrl);
    const mirror = mirrorPathOf(o.repoKey);
    const branch = await validateBranchName(git, o.branch);
    assertPushAllowed(branch, o.allowedPushBranches);
    if (o.baseBranch !== undefined) await validateBranchName(git, o.baseBranch);
    const owner = sandboxOwner(o.sandbox);
    const checkout = await claimCheckout(checkoutName(o.jobId), o.jobId, mirror);
    const log = logger?.child({ jobId: o.jobId, repo: o.repoKey });

    try {
      const locked = await withLock(
        `${mirror}.lock`,
        async () => {
          const token = await resolveToken(o.token);
          const warm = await exists(path.join(mirror, "HEAD"));
          const fetchStarted = Date.now();
          const fresh = warm && o.freshAfter !== undefined && (await lastFetchStart(mirror)) > o.freshAfter;
          if (!warm) await createMirror(mirror, remote, token, o.signal);
          else if (!fresh) await fetchMirror(mirror, remote, token, o.signal);
          if (!fresh) await writeFile(path.join(mirror, LAST_FETCH_FILE), `${fetchStarted}\n`);
          await touchLastUsed(mirror);
          const baseBranch = o.baseBranch ?? (await remoteHead(mirror, remote, token, o.signal));
          const mirrorRepo = { gitDir: mirror };
          const baseSha = await refSha(mirrorRepo, `refs/heads/${baseBranch}`);
          if (!baseSha) throw new TackleError("not_found", `base branch '${baseBranch}' does not exist in ${o.repoKey}`);
          const remoteBranchSha = await refSha(mirrorRepo, `refs/heads/${branch}`);
          const startSha = o.startFrom === "existing" && remoteBranchSha !== null ? remoteBranchSha : baseSha;
          // Under the lock, so eviction and fetches see a consistent mirror. Only a sandboxed job's
          // checkout is recycled: without the sandbox, its processes may outlive it.
          const recycled = o.sandbox === "bwrap" && (await reuseParked(mirror, checkout.dir, startSha));
          if (!recycled) {
            await git.run({
              args: ["clone", "--shared", "--no-checkout", "--quiet", `--template=${templateDir}`, mirror, checkout.dir],
              protocols: ["file"],
            });
          }
          return { warm, recycled, baseBranch, baseSha, remoteBranchSha };
        },
        o.signal ? { signal: o.signal } : {},
      );
      const workspace = await finishCheckout(o, { ...locked, branch, remote, mirror, owner, checkout });
      log?.info({ warm: locked.warm, recycled: locked.recycled, ms: Date.now() - started, branch, base: locked.baseBranch }, "workspace prepared");
      void enforceBudget().catch((error: unknown) => logger?.warn({ err: error }, "mirror eviction failed"));
      return workspace;
    } catch (error) {
      await removeTree(checkout.dir);
      await removeTree(checkout.homeDir);
      await removeTree(checkout.metaPath);
      throw error;
    }
  }

  async function finishCheckout(
    o: PrepareOptions,
    s: {
      branch: string;
      baseBranch: string;
      baseSha: string;
      remoteBranchSha: string | null;
      remote: RemoteInfo;
      mirror: string;
      owner: ReturnType<typeof sandboxOwner>;
      checkout: { dir: string; metaPath: string; homeDir: string; publishDir: string };
    },
  ): Promise<Workspace> {
    const root = s.checkout.dir;
    const gitDir = path.join(root, ".git");
    const repo: GitRepoLocation = { gitDir, workTree: root };
    await git.run({ args: ["config", "remote.origin.url", s.remote.url], repo });
    const continueExisting = o.startFrom === "existing" && s.remoteBranchSha !== null;
    // -f: a recycled checkout's files that differ from the start commit are overwritten.
    const checkoutArgs = continueExisting
      ? ["checkout", "--quiet", "-f", "--track", "-B", s.branch, `refs/remotes/origin/${s.branch}`]
      : ["checkout", "--quiet", "-f", "--no-track", "-B", s.branch, s.baseSha];
    await git.run({ args: checkoutArgs, repo });
    // A local base branch, so `git diff main` works in the agent's shell as it would in a clone.
    if (s.baseBranch !== s.branch) {
      await git.run({ args: ["branch", "--force", "--no-track", s.baseBranch, s.baseSha], repo });
    }
    const startSha = (await git.run({ args: ["rev-parse", "HEAD"], repo })).stdout.trim();

    const hooksDir = path.join(gitDir, "hooks");
    await mkdir(hooksDir, { recursive: true });
    await mkdir(s.checkout.homeDir, { recursive: true, mode: 0o700 });
    const alternates = path.join(gitDir, "objects", "info", "alternates");
    const protectedPaths = [path.join(gitDir, "config"), hooksDir, alternates];
    if (s.owner) {
      await chownTree(root, s.owner);
      await chown(s.checkout.homeDir, s.owner.uid, s.owner.gid);
      // Git's own settings stay root's: read-only inside the sandbox, and not the agent's even outside it.
      for (const p of protectedPaths) await chown(p, 0, 0);
    }

    const ports = assemblePorts({
      root,
      repo,
      mode: o.sandbox,
      owner: s.owner,
      extraReadOnly: [s.mirror],
      // `.git` as its own mount point cannot be renamed or replaced from inside.
      extraWritable: [gitDir],
      readOnlyInside: protectedPaths,
      homeDir: s.checkout.homeDir,
      author: o.author ?? DEFAULT_AUTHOR,
      ...(logger ? { logger: logger.child({ jobId: o.jobId }) } : {}),
    });
    let remoteSha = s.remoteBranchSha;
    let disposed: Promise<void> | undefined;
    let publish: PublishRepo | undefined;
    const reader = createCheckoutReader({ sandbox: ports.exec, repo: { ...repo, workTree: root } });
    const publishDir = s.checkout.publishDir;
    // The host runs no git on this checkout from here on: what it publishes it reads through the
    // sandbox (`reader`) and decides in its own repository (`publish`).
    let published: string | null = null;

    return {
      root: ports.fs.root,
      branch: s.branch,
      baseBranch: s.baseBranch,
      baseSha: s.baseSha,
      startSha,
      ...ports,
      sandboxed: ports.exec.sandboxed,

      async push({ token, signal, verify }) {
        assertPushAllowed(s.branch, o.allowedPushBranches);
        // A pull request's own head is measured from where it was when the job started (what this
        // job added), an issue's branch from the base.
        const from = continueExisting ? (s.remoteBranchSha ?? s.baseSha) : s.baseSha;
        publish ??= await createPublishRepo(git, publishDir, [path.join(s.mirror, "objects")], templateDir);
        const { sha } = await verifiedTip({
          publish,
          reader,
          branch: s.branch,
          from,
          base: s.baseSha,
          exclude: [...new Set([s.baseSha, from])],
          verify,
          ...(signal ? { signal } : {}),
        });
        if (sha === remoteSha) return { sha, pushed: false };
        if (continueExisting && !(await publish.isAncestor(from, sha))) {
          throw new TackleError("push_refused", `push refused: ${sha} does not build on the pull request's head ${from}; add commits, never rewrite them`);
        }
        const args = ["push", "--no-verify", "--quiet", "--recurse-submodules=no"];
        // A pull request's own head only ever gets new commits; a stale tackle branch is replaced,
        // but only if nobody moved it since we looked.
        if (!continueExisting) args.push(`--force-with-lease=refs/heads/${s.branch}:${remoteSha ?? ""}`);
        // By sha, from the host's own repository: nothing in the checkout names what is pushed where.
        args.push(s.remote.url, `${sha}:refs/heads/${s.branch}`);
        try {
          await git.run({ args, repo: { gitDir: publish.gitDir }, ...(token !== undefined ? { token } : {}), protocols: [s.remote.scheme], retryable: true, ...(signal ? { signal } : {}) });
        } catch (error) {
          if (error instanceof TackleError && error.code === "git") {
            throw new TackleError("push_refused", `push of ${s.branch} was refused: ${error.message}`, { retryable: true, cause: error });
          }
          throw error;
        }
        remoteSha = sha;
        published = sha;
        return { sha, pushed: true };
      },

      commitsAhead: () => reader.countAhead(s.baseSha, s.branch),

      /** The patch of what was last published, from the host's own objects (empty before). */
      async formatPatch() {
        return publish && published ? publish.formatPatch(s.baseSha, published) : "";
      },

      dispose() {
        disposed ??= (async () => {
          // Recycled only when no command of this job can still be running in it.
          const recyclable = o.sandbox === "bwrap" && ports.exec.running === 0;
          const parked = recyclable && (await park(root, s.mirror).catch(() => false));
          if (!parked) await removeTree(root);
          await removeTree(publishDir);
          await removeTree(s.checkout.homeDir);
          await removeTree(s.checkout.metaPath);
        })();
        return disposed;
      },
    };
  }

  /** Whether the process that named a temporary directory after its pid may still be using it. */
  function isLocalPidAlive(pid: number): Promise<boolean> {
    return isOwnerAlive({ pid, startTime: null, hostname: hostname(), createdAt: Date.now() }, staleAfterMs);
  }

  async function pruneStale(): Promise<void> {
    await ensureDirs();
    for (const { name, meta } of await listCheckoutMetas()) {
      if (meta && (await isOwnerAlive(meta, staleAfterMs))) continue;
      logger?.info({ checkout: name, pid: meta?.pid }, "removing stale checkout");
      const dir = path.join(checkoutsDir, name);
      await removeTree(dir);
      await removeTree(`${dir}.home`);
      await removeTree(`${dir}.publish`);
      await removeTree(`${dir}.json`);
    }
    // Parked checkouts nobody recycled in time, or whose mirror is gone.
    const liveMirrors = new Set((await listMirrors()).map(recyclePool));
    for (const pool of await readdir(recycledDir).catch(() => [] as string[])) {
      const poolDir = path.join(recycledDir, pool);
      const maker = /^new-(\d+)-/.exec(pool);
      if (maker) {
        // A fresh .git being made for a recycled checkout; left behind only by a crash.
        if (!(await isLocalPidAlive(Number(maker[1])))) await removeTree(poolDir);
        continue;
      }
      if (!liveMirrors.has(poolDir)) {
        await removeTree(poolDir);
        continue;
      }
      for (const entry of await readdir(poolDir).catch(() => [] as string[])) {
        const parkedAt = Number(entry.split("-")[0]);
        if (!(Date.now() - parkedAt < staleAfterMs)) await removeTree(path.join(poolDir, entry));
      }
    }
    // Half-made mirrors from a crash during the first clone.
    for (const host of await readdir(mirrorsDir).catch(() => [] as string[])) {
      for (const owner of await readdir(path.join(mirrorsDir, host)).catch(() => [] as string[])) {
        for (const entry of await readdir(path.join(mirrorsDir, host, owner)).catch(() => [] as string[])) {
          const match = /\.git\.tmp-(\d+)-/.exec(entry);
          if (match && !(await isLocalPidAlive(Number(match[1])))) {
            await removeTree(path.join(mirrorsDir, host, owner, entry));
          }
        }
      }
    }
    await enforceBudget();
  }

  async function stats(): Promise<RepoCacheStats> {
    const mirrors: RepoCacheStats["mirrors"] = [];
    for (const mirror of await listMirrors()) {
      const rel = path.relative(mirrorsDir, mirror).split(path.sep).join("/").replace(/\.git$/, "");
      mirrors.push({ repoKey: rel, path: mirror, bytes: await diskUsage(mirror), lastUsedAt: await lastUsed(mirror) });
    }
    const checkouts: RepoCacheStats["checkouts"] = [];
    for (const { name, meta } of await listCheckoutMetas()) {
      checkouts.push({
        jobId: meta?.jobId ?? name,
        path: path.join(checkoutsDir, name),
        pid: meta?.pid ?? null,
        alive: meta ? await isOwnerAlive(meta, staleAfterMs) : false,
        createdAt: meta?.createdAt ?? null,
      });
    }
    return { mirrors, checkouts, mirrorBytes: mirrors.reduce((sum, m) => sum + m.bytes, 0), maxBytes: options.maxBytes ?? null };
  }

  return { prepare, pruneStale, stats };
}
