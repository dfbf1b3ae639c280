import { mkdir } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { buildWorkspace, type PublishTarget } from "./build-workspace.js";
import { createCacheCleanup, type RepoCacheStats } from "./cache-cleanup.js";
import { removeCheckout } from "./checkout-paths.js";
import { createCheckoutPool } from "./checkout-pool.js";
import { extractRepoExtensions } from "./extract-repo-extensions.js";
import { withLock } from "./file-lock.js";
import { assertPushAllowed, createHostGit, parseRemoteUrl, validateBranchName, type HostGit, type RemoteInfo } from "./git-host.js";
import { createMirrorStore, mirrorLock } from "./mirror-store.js";
import { sandboxOwner, type SandboxMode } from "./sandbox.js";
import { DEFAULT_AUTHOR, type CommitAuthor, type Workspace } from "./workspace.js";

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
  /**
   * The repository's default branch, whose commit's agents and skills the job gets (never the
   * checkout's). @defaultValue `baseBranch` when that is not given (the remote's HEAD), else the mirror's HEAD
   */
  defaultBranch?: string;
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

export interface RepoCache {
  prepare(options: PrepareOptions): Promise<Workspace>;
  /** Removes checkouts whose owner is gone or that are older than staleAfterHours, and half-made mirrors. */
  pruneStale(): Promise<void>;
  stats(): Promise<RepoCacheStats>;
}

/** Where a job starts: the base, and the job's branch on the remote when it continues it. */
interface StartPoint {
  baseBranch: string;
  baseSha: string;
  /** The branch's tip on the remote, or null when the remote lacks it. */
  remoteBranchSha: string | null;
  /** Whether the job adds to the remote branch (a pull request's head) rather than starting it from the base. */
  continueExisting: boolean;
}

/**
 * Server jobs' workspaces under TACKLE_HOME: a bare mirror per repository (`mirror-store`), a
 * checkout per job borrowing its objects, recycled when it can be (`checkout-pool`), the agent's
 * Workspace over it (`build-workspace`), and what keeps the disk in bounds (`cache-cleanup`).
 */
export function createRepoCache(options: RepoCacheOptions): RepoCache {
  const home = path.resolve(options.home);
  const logger = options.logger;
  const mirrorsDir = path.join(home, "mirrors");
  const checkoutsDir = path.join(home, "checkouts");
  const gitHome = path.join(home, "git-home");
  const templateDir = path.join(gitHome, "empty-template");
  const recycledDir = path.join(home, "recycled");
  const staleAfterMs = (options.staleAfterHours ?? 24) * 3600_000;
  const git = createHostGit({ gitHome, ...(logger ? { logger } : {}) });
  const mirrors = createMirrorStore({ mirrorsDir, templateDir, git, ...(logger ? { logger } : {}) });
  const pool = createCheckoutPool({
    checkoutsDir,
    recycledDir,
    templateDir,
    git,
    staleAfterMs,
    recycledPerRepo: options.recycledPerRepo ?? 2,
    ...(logger ? { logger } : {}),
  });
  const cleanup = createCacheCleanup({
    mirrors,
    pool,
    staleAfterMs,
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(logger ? { logger } : {}),
  });

  async function ensureDirs(): Promise<void> {
    for (const dir of [mirrorsDir, checkoutsDir, templateDir]) await mkdir(dir, { recursive: true, mode: 0o755 });
    await mkdir(recycledDir, { recursive: true, mode: 0o700 });
  }

  async function prepare(o: PrepareOptions): Promise<Workspace> {
    const started = Date.now();
    await ensureDirs();
    const remote = parseRemoteUrl(o.remoteUrl);
    const mirror = mirrors.pathOf(o.repoKey);
    const branch = await validateBranchName(git, o.branch);
    assertPushAllowed(branch, o.allowedPushBranches);
    if (o.baseBranch !== undefined) await validateBranchName(git, o.baseBranch);
    if (o.defaultBranch !== undefined) await validateBranchName(git, o.defaultBranch);
    const checkout = await pool.claim(o.jobId, mirror);
    try {
      // Under the lock, so eviction and fetches see a consistent mirror.
      const { start, warm, recycled, extensionFiles } = await withLock(
        mirrorLock(mirror),
        async () => {
          const token = typeof o.token === "function" ? await o.token() : o.token;
          const fetch = {
            ...(token ? { token } : {}),
            ...(o.signal ? { signal: o.signal } : {}),
            ...(o.freshAfter !== undefined ? { freshAfter: o.freshAfter } : {}),
          };
          const { warm } = await mirrors.update(mirror, remote, fetch);
          const baseBranch = o.baseBranch ?? (await mirrors.remoteHead(mirror, remote, fetch));
          const baseSha = await mirrors.branchSha(mirror, baseBranch);
          if (!baseSha) throw new TackleError("not_found", `base branch '${baseBranch}' does not exist in ${o.repoKey}`);
          const remoteBranchSha = await mirrors.branchSha(mirror, branch);
          const continueExisting = o.startFrom === "existing" && remoteBranchSha !== null;
          // Only a sandboxed job's checkout is recycled: without the sandbox, its processes may outlive it.
          const recycled = await pool.fill(mirror, checkout.root, continueExisting ? remoteBranchSha : baseSha, o.sandbox === "bwrap");
          const defaultSha = o.baseBranch === undefined && o.defaultBranch === undefined ? baseSha : await defaultBranchSha(mirror, o.defaultBranch);
          const extensionFiles =
            defaultSha === null
              ? null
              : await extractRepoExtensions({
                  git,
                  repo: { gitDir: mirror },
                  commit: defaultSha,
                  dir: checkout.extensionsDir,
                  ...(logger ? { logger: logger.child({ jobId: o.jobId }) } : {}),
                  ...(o.signal ? { signal: o.signal } : {}),
                });
          return { start: { baseBranch, baseSha, remoteBranchSha, continueExisting }, warm, recycled, extensionFiles };
        },
        o.signal ? { signal: o.signal } : {},
      );
      const startSha = await startBranch(git, checkout.root, remote, branch, start);
      const workspace = await buildWorkspace({
        git,
        paths: checkout,
        branch,
        baseBranch: start.baseBranch,
        baseSha: start.baseSha,
        startSha,
        sandbox: o.sandbox,
        owner: sandboxOwner(o.sandbox),
        borrowed: [mirror],
        templateDir,
        author: o.author ?? DEFAULT_AUTHOR,
        ...(logger ? { logger: logger.child({ jobId: o.jobId }) } : {}),
        publish: pushTarget(git, { mirror, remote, branch, start, allowedPushBranches: o.allowedPushBranches }),
        extensionFiles,
        ...(o.sandbox === "bwrap" ? { recycle: (root: string) => pool.park(root, mirror) } : {}),
      });
      logger
        ?.child({ jobId: o.jobId, repo: o.repoKey })
        .info({ warm, recycled, ms: Date.now() - started, branch, base: start.baseBranch }, "workspace prepared");
      void cleanup.enforceBudget().catch((error: unknown) => logger?.warn({ err: error }, "mirror eviction failed"));
      return workspace;
    } catch (error) {
      await removeCheckout(checkout);
      throw error;
    }
  }

  /** The default branch's commit in the mirror (named, or the mirror's HEAD), or null with a warning when it has none. */
  async function defaultBranchSha(mirror: string, named: string | undefined): Promise<string | null> {
    const sha =
      named !== undefined
        ? await mirrors.branchSha(mirror, named)
        : await git
            .run({ args: ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repo: { gitDir: mirror }, okExitCodes: [0, 1] })
            .then((result) => (result.exitCode === 0 ? result.stdout.trim() : null));
    if (sha === null)
      logger?.warn({ mirror, defaultBranch: named ?? "HEAD" }, "the default branch is not in the mirror; the job gets no repository agents or skills");
    return sha;
  }

  async function pruneStale(): Promise<void> {
    await ensureDirs();
    await cleanup.pruneStale();
  }

  return { prepare, pruneStale, stats: cleanup.stats };
}

/**
 * Puts the fresh (or reset) checkout on `branch`, before the agent ever runs in it; returns HEAD.
 * -f: a recycled checkout's files that differ from the start commit are overwritten.
 */
async function startBranch(git: HostGit, root: string, remote: RemoteInfo, branch: string, start: StartPoint): Promise<string> {
  const repo = { gitDir: path.join(root, ".git"), workTree: root };
  await git.run({ args: ["config", "remote.origin.url", remote.url], repo });
  const checkoutArgs = start.continueExisting
    ? ["checkout", "--quiet", "-f", "--track", "-B", branch, `refs/remotes/origin/${branch}`]
    : ["checkout", "--quiet", "-f", "--no-track", "-B", branch, start.baseSha];
  await git.run({ args: checkoutArgs, repo });
  // A local base branch, so `git diff main` works in the agent's shell as it would in a clone.
  if (start.baseBranch !== branch) {
    await git.run({ args: ["branch", "--force", "--no-track", start.baseBranch, start.baseSha], repo });
  }
  return (await git.run({ args: ["rev-parse", "HEAD"], repo })).stdout.trim();
}

/** A server job publishes by pushing, from the host's publish repository, to the real remote. */
function pushTarget(
  git: HostGit,
  s: { mirror: string; remote: RemoteInfo; branch: string; start: StartPoint; allowedPushBranches: readonly string[] | undefined },
): PublishTarget {
  const { continueExisting, baseSha, remoteBranchSha } = s.start;
  // A pull request's own head is measured from where it was when the job started (what this job
  // added), an issue's branch from the base.
  const from = continueExisting ? (remoteBranchSha ?? baseSha) : baseSha;
  return {
    alternates: [path.join(s.mirror, "objects")],
    from,
    base: baseSha,
    current: remoteBranchSha,
    precheck: () => assertPushAllowed(s.branch, s.allowedPushBranches),
    async deliver({ publish, sha, previous, token, signal }) {
      if (continueExisting && !(await publish.isAncestor(from, sha))) {
        throw new TackleError("push_refused", `push refused: ${sha} does not build on the pull request's head ${from}; add commits, never rewrite them`);
      }
      const args = ["push", "--no-verify", "--quiet", "--recurse-submodules=no"];
      // A pull request's own head only ever gets new commits; a stale tackle branch is replaced,
      // but only if nobody moved it since we looked.
      if (!continueExisting) args.push(`--force-with-lease=refs/heads/${s.branch}:${previous ?? ""}`);
      // By sha, from the host's own repository: nothing in the checkout names what is pushed where.
      args.push(s.remote.url, `${sha}:refs/heads/${s.branch}`);
      try {
        await git.run({
          args,
          repo: { gitDir: publish.gitDir },
          ...(token !== undefined ? { token } : {}),
          protocols: [s.remote.scheme],
          retryable: true,
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        if (error instanceof TackleError && error.code === "git") {
          throw new TackleError("push_refused", `push of ${s.branch} was refused: ${error.message}`, { retryable: true, cause: error });
        }
        throw error;
      }
    },
  };
}
