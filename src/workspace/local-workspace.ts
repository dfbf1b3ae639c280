import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { buildWorkspace, type PublishTarget } from "./build-workspace.js";
import { checkoutPaths, claimCheckout, removeCheckout, type CheckoutPaths } from "./checkout-paths.js";
import { extractRepoExtensions } from "./extract-repo-extensions.js";
import { createHostGit, hardeningArgs, validateBranchName, type GitRepoLocation, type HostGit } from "./git-host.js";
import { isOwnerAlive, parseOwnerRecord } from "./owner-record.js";
import { transferCommits } from "./publish-repo.js";
import { isRoot, type SandboxMode } from "./sandbox.js";
import { commandIdentity, handOverInto, locateUserRepo, type UserRepo } from "./user-repo.js";
import { DEFAULT_AUTHOR, type CommitAuthor, type Workspace } from "./workspace.js";

export interface LocalWorkspaceOptions {
  /** The user's repository (any directory inside it). */
  repoPath: string;
  /** A new branch, created from the repository's current HEAD. */
  branch: string;
  /** TACKLE_HOME; the private repository goes to `${home}/local/<slug>`. */
  home: string;
  sandbox: SandboxMode;
  logger?: Logger;
  /** @defaultValue {@link DEFAULT_AUTHOR} */
  author?: CommitAuthor;
  /** Offers extra worktrees of the private repository (the Worktree tool). @defaultValue false */
  worktrees?: boolean;
}

const STALE_AFTER_MS = 7 * 24 * 3600_000;
/** Bound on the first checkout of the private repository. */
const START_TIMEOUT_MS = 600_000;

/**
 * `tackle run --local PATH`: the job works in a private repository of its own under TACKLE_HOME,
 * which borrows the user's objects read-only (as server jobs borrow the mirror's) and starts on a
 * new branch at the user's HEAD. Nothing of the user's repository is writable in the sandbox: not
 * its refs, config, hooks, `commondir` nor working tree. When the run hands its work over, the host
 * checks the branch from objects it owns (as before a push) and then writes exactly two things
 * into the user's repository: the new objects, as one pack, and the one new branch ref. Everything
 * done in the user's repository is done as its owner (user-repo.ts).
 */
export async function openLocalWorkspace(options: LocalWorkspaceOptions): Promise<Workspace> {
  const home = path.resolve(options.home);
  const gitHome = path.join(home, "git-home");
  const git = createHostGit({ gitHome, ...(options.logger ? { logger: options.logger } : {}) });
  const templateDir = path.join(gitHome, "empty-template");
  await mkdir(templateDir, { recursive: true });
  const user = await locateUserRepo({ userPath: path.resolve(options.repoPath), gitHome, ...(options.logger ? { logger: options.logger } : {}) });

  const branch = await validateBranchName(git, options.branch);
  const branchExists = await user.git.run({ args: ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repo: user.repo, okExitCodes: [0, 1] });
  if (branchExists.exitCode === 0) {
    throw new TackleError("workspace", `branch ${branch} already exists in ${user.topLevel}; pick another name or delete it`);
  }

  const slug = branch.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+/, "");
  const paths = checkoutPaths(path.join(home, "local", slug));
  await mkdir(path.dirname(paths.root), { recursive: true });
  await pruneStaleLocal(path.dirname(paths.root));
  // What a crashed run with the same branch name left is removed; a live run's is refused.
  await claimCheckout(
    paths,
    { branch },
    {
      staleAfterMs: STALE_AFTER_MS,
      inUse: (owner) => new TackleError("workspace", `${paths.root} is in use by another run (pid ${owner.pid})`),
    },
  );

  try {
    return await openPrivateRepo(git, { ...options, templateDir, user, branch, paths });
  } catch (error) {
    await removeCheckout(paths);
    throw error;
  }
}

/** Whether every file and directory under `dir` is readable by anyone (objects are read-only, 0444). */
async function worldReadable(dir: string): Promise<boolean> {
  const info = await stat(dir).catch(() => null);
  if (!info) return true;
  if (info.isDirectory()) {
    if ((info.mode & 0o005) !== 0o005) return false;
    for (const entry of await readdir(dir)) if (!(await worldReadable(path.join(dir, entry)))) return false;
    return true;
  }
  return (info.mode & 0o004) !== 0;
}

async function openPrivateRepo(
  git: HostGit,
  o: LocalWorkspaceOptions & { templateDir: string; user: UserRepo; branch: string; paths: CheckoutPaths },
): Promise<Workspace> {
  const { user, branch, paths } = o;
  const root = paths.root;
  const gitDir = path.join(root, ".git");
  const repo: GitRepoLocation = { gitDir, workTree: root };
  // As root, commands run as the repository's owner, never as uid or gid 0.
  const owner = isRoot() ? commandIdentity(user.owner) : null;

  await git.run({ args: ["init", "--quiet", `--template=${o.templateDir}`, root] });
  const alternates = path.join(gitDir, "objects", "info", "alternates");
  await mkdir(path.dirname(alternates), { recursive: true });
  // Borrowed read-only when the sandbox user can read them; otherwise (a root-owned repository
  // whose objects only root may read) the history of HEAD is copied in.
  const borrow = owner === null || owner.uid === user.owner.uid || (await Promise.all(user.objectDirs.map(worldReadable))).every(Boolean);
  if (borrow) await writeFile(alternates, `${path.join(user.commonDir, "objects")}\n`);
  else {
    await writeFile(alternates, "");
    // Read out by the owner's git, indexed (and checked) by the host's.
    await transferCommits(user.git, { from: user.repo, to: repo, toGit: git, tip: user.headSha, exclude: [] });
  }
  // Root borrowing another user's objects reads none of them: that checkout is made in the sandbox, as the owner.
  const byOwner = owner !== null && owner.uid === user.owner.uid;
  if (!byOwner) for (const args of startArgs(user, branch)) await git.run({ args, repo });

  // From HEAD's commit, as committed: never the user's working tree, which may hold anything.
  const extensionFiles = await extractRepoExtensions({
    git: user.git,
    repo: { gitDir: user.commonDir },
    commit: user.headSha,
    dir: paths.extensionsDir,
    ...(o.logger ? { logger: o.logger } : {}),
  });

  const workspace = await buildWorkspace({
    git,
    paths,
    branch,
    extensionFiles,
    baseBranch: user.baseBranch,
    baseSha: user.headSha,
    startSha: user.headSha,
    sandbox: o.sandbox,
    owner,
    borrowed: borrow ? user.objectDirs : [],
    // The owner's own directories are bound by the owner: a symlink they swap in leads only where they may go.
    borrowedByOwner: byOwner,
    templateDir: o.templateDir,
    author: o.author ?? DEFAULT_AUTHOR,
    ...(o.logger ? { logger: o.logger } : {}),
    publish: handOver(git, user, branch),
    ...(o.worktrees === true ? { worktrees: true } : {}),
  });
  if (byOwner)
    await startInSandbox(workspace, startArgs(user, branch)).catch(async (error: unknown) => {
      await workspace.dispose();
      throw error;
    });
  return workspace;
}

/** The run's branch at the user's HEAD, and the user's branch name too (so `git diff main` works in the agent's shell). */
function startArgs(user: UserRepo, branch: string): string[][] {
  const args = [["checkout", "--quiet", "-f", "-B", branch, user.headSha]];
  if (user.baseBranch !== "HEAD" && user.baseBranch !== branch) args.push(["branch", "--force", "--no-track", user.baseBranch, user.headSha]);
  return args;
}

/** `startArgs` in the sandbox, as the owner; the values reach git through the environment, never the shell. */
async function startInSandbox(workspace: Workspace, commands: string[][]): Promise<void> {
  const hardening = hardeningArgs()
    .map((arg) => `'${arg}'`)
    .join(" ");
  for (const args of commands) {
    const env = Object.fromEntries(args.map((arg, i) => [`TACKLE_ARG_${i}`, arg]));
    const argv = args.map((_, i) => `"$TACKLE_ARG_${i}"`).join(" ");
    const result = await workspace.exec.run(`git ${hardening} ${argv}`, { timeoutMs: START_TIMEOUT_MS, env });
    if (result.timedOut || result.exitCode !== 0) {
      throw new TackleError("workspace", `git ${args[0]} in the private repository failed: ${result.output.trim().slice(-2000)}`);
    }
  }
}

/**
 * The hand-over: the checked commit into the user's repository, as one pack and one new ref. The
 * publish repository borrows the user's objects, except when root would read another user's: then
 * their git copies HEAD's history in (the kernel applies their permissions to every file it reads;
 * root's git would follow their alternates and symlinked objects to files only root may read).
 */
function handOver(git: HostGit, user: UserRepo, branch: string): PublishTarget {
  const copy = isRoot() && user.owner.uid !== 0;
  return {
    alternates: copy ? [] : user.objectDirs.slice(0, 1),
    ...(copy
      ? { copyIn: async (to: GitRepoLocation) => void (await transferCommits(user.git, { from: user.repo, to, toGit: git, tip: user.headSha, exclude: [] })) }
      : {}),
    from: user.headSha,
    current: null,
    async deliver({ publish, sha, previous }) {
      await handOverInto(user, { hostGit: git, from: { gitDir: publish.gitDir }, sha, branch, previous });
    },
  };
}

/** Private repositories of earlier runs that crashed (their owner is gone). */
async function pruneStaleLocal(localDir: string): Promise<void> {
  for (const entry of await readdir(localDir).catch(() => [] as string[])) {
    if (!entry.endsWith(".json")) continue;
    const metaPath = path.join(localDir, entry);
    const text = await readFile(metaPath, "utf8").catch(() => null);
    const owner = text === null ? null : parseOwnerRecord(text);
    if (!owner || (await isOwnerAlive(owner, STALE_AFTER_MS))) continue;
    await removeCheckout(checkoutPaths(metaPath.slice(0, -".json".length)));
  }
}
