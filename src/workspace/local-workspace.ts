import { lchown, lstat, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { buildWorkspace, type PublishTarget } from "./build-workspace.js";
import { checkoutPaths, claimCheckout, removeCheckout, type CheckoutPaths } from "./checkout-paths.js";
import { extractRepoExtensions } from "./extract-repo-extensions.js";
import { exists } from "./fs-util.js";
import { createHostGit, validateBranchName, type GitRepoLocation, type HostGit } from "./git-host.js";
import { isOwnerAlive, parseOwnerRecord } from "./owner-record.js";
import { transferCommits } from "./publish-repo.js";
import { isRoot, type SandboxIdentity, type SandboxMode } from "./sandbox.js";
import { DEFAULT_IDENTITY } from "./sandbox-plan.js";
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
/** Git's own limit on nested alternates. */
const MAX_ALTERNATE_DEPTH = 5;

/**
 * `tackle run --local PATH`: the job works in a private repository of its own under TACKLE_HOME,
 * which borrows the user's objects read-only (as server jobs borrow the mirror's) and starts on a
 * new branch at the user's HEAD. Nothing of the user's repository is writable in the sandbox: not
 * its refs, config, hooks, `commondir` nor working tree. When the run hands its work over, the host
 * checks the branch from objects it owns (as before a push) and then writes exactly two things
 * into the user's repository: the new objects, as one pack, and the one new branch ref.
 */
export async function openLocalWorkspace(options: LocalWorkspaceOptions): Promise<Workspace> {
  const home = path.resolve(options.home);
  const gitHome = path.join(home, "git-home");
  const git = createHostGit({ gitHome, ...(options.logger ? { logger: options.logger } : {}) });
  const templateDir = path.join(gitHome, "empty-template");
  await mkdir(templateDir, { recursive: true });
  const user = await locateUserRepo(git, path.resolve(options.repoPath));

  const branch = await validateBranchName(git, options.branch);
  const branchExists = await git.run({ args: ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repo: user.repo, okExitCodes: [0, 1] });
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

interface UserRepo {
  topLevel: string;
  /** The repository's own git dir (the common dir of a linked worktree). */
  commonDir: string;
  repo: GitRepoLocation;
  headSha: string;
  /** The branch HEAD is on, or "HEAD" when detached. */
  baseBranch: string;
  /** Its object directory and every one it borrows from, absolute. */
  objectDirs: string[];
  owner: SandboxIdentity;
}

async function locateUserRepo(git: HostGit, userPath: string): Promise<UserRepo> {
  // The user named this repository; it may belong to another uid than Tackle's.
  const trust = ["-c", "safe.directory=*"];
  const located = await git
    .run({ args: [...trust, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], cwd: userPath })
    .catch((error: unknown) => {
      throw new TackleError("workspace", `${userPath} is not inside a git repository with a working tree`, { cause: error });
    });
  const [topLevel = "", commonDir = ""] = located.stdout.split("\n").map((line) => line.trim());
  const repo: GitRepoLocation = { gitDir: commonDir, workTree: topLevel };
  const head = await git.run({ args: ["rev-parse", "--verify", "HEAD^{commit}"], repo }).catch((error: unknown) => {
    throw new TackleError("workspace", `${topLevel} has no commits yet; commit something first`, { cause: error });
  });
  const headName = await git.run({ args: ["symbolic-ref", "--quiet", "--short", "HEAD"], repo, okExitCodes: [0, 1] });
  const info = await stat(commonDir);
  return {
    topLevel,
    commonDir,
    repo,
    headSha: head.stdout.trim(),
    baseBranch: headName.exitCode === 0 ? headName.stdout.trim() : "HEAD",
    objectDirs: await objectDirsOf(path.join(commonDir, "objects")),
    owner: { uid: info.uid, gid: info.gid },
  };
}

/** An object directory and the ones it borrows from through `info/alternates`, as git follows them. */
async function objectDirsOf(objects: string, depth = 0): Promise<string[]> {
  const dirs = [objects];
  if (depth >= MAX_ALTERNATE_DEPTH) return dirs;
  const text = await readFile(path.join(objects, "info", "alternates"), "utf8").catch(() => "");
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const borrowed = path.resolve(objects, line);
    if (await exists(borrowed)) dirs.push(...(await objectDirsOf(borrowed, depth + 1)));
  }
  return [...new Set(dirs)];
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
  // As root, commands run as the repository's owner (never root): a root-owned repository gets the default identity.
  const owner = isRoot() ? (user.owner.uid === 0 ? DEFAULT_IDENTITY : user.owner) : null;

  await git.run({ args: ["init", "--quiet", `--template=${o.templateDir}`, root] });
  const alternates = path.join(gitDir, "objects", "info", "alternates");
  await mkdir(path.dirname(alternates), { recursive: true });
  // Borrowed read-only when the sandbox user can read them; otherwise (a root-owned repository
  // whose objects only root may read) the history of HEAD is copied in.
  const borrow = owner === null || owner.uid === user.owner.uid || (await Promise.all(user.objectDirs.map(worldReadable))).every(Boolean);
  if (borrow) await writeFile(alternates, `${path.join(user.commonDir, "objects")}\n`);
  else {
    await writeFile(alternates, "");
    await transferCommits(git, { from: user.repo, to: repo, tip: user.headSha, exclude: [] });
  }
  await git.run({ args: ["checkout", "--quiet", "-f", "-B", branch, user.headSha], repo });
  // The user's branch name too, so `git diff main` works in the agent's shell.
  if (user.baseBranch !== "HEAD" && user.baseBranch !== branch) {
    await git.run({ args: ["branch", "--force", "--no-track", user.baseBranch, user.headSha], repo });
  }

  // From HEAD's commit, as committed: never the user's working tree, which may hold anything.
  const extensionFiles = await extractRepoExtensions({
    git,
    repo: { gitDir: user.commonDir },
    commit: user.headSha,
    dir: paths.extensionsDir,
    ...(o.logger ? { logger: o.logger } : {}),
  });

  return buildWorkspace({
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
    templateDir: o.templateDir,
    author: o.author ?? DEFAULT_AUTHOR,
    ...(o.logger ? { logger: o.logger } : {}),
    publish: handOver(git, user, branch),
    ...(o.worktrees === true ? { worktrees: true } : {}),
  });
}

/** The hand-over: the checked commit into the user's repository, as one pack and one new ref. */
function handOver(git: HostGit, user: UserRepo, branch: string): PublishTarget {
  return {
    alternates: user.objectDirs.slice(0, 1),
    from: user.headSha,
    current: null,
    async deliver({ publish, sha, previous }) {
      // Hooks, fsmonitor and reflogs off: nothing runs, and nothing but the pack and the ref is written.
      const pack = await transferCommits(git, { from: { gitDir: publish.gitDir }, to: { gitDir: user.commonDir }, tip: sha, exclude: [user.headSha] });
      await git.run({
        args: ["-c", "core.logAllRefUpdates=false", "update-ref", `refs/heads/${branch}`, sha, previous ?? ""],
        repo: { gitDir: user.commonDir },
      });
      // Written as root into someone else's repository: give what was written (and only that) to its owner.
      if (isRoot() && user.owner.uid !== 0) await giveToOwner(user, pack, branch);
    },
  };
}

/** The new pack's files and the new ref (with any directory made for it) to the repository's owner. */
async function giveToOwner(user: UserRepo, pack: string, branch: string): Promise<void> {
  const written = ["pack", "idx", "rev", "keep"].map((ext) => path.join(user.commonDir, "objects", "pack", `pack-${pack}.${ext}`));
  const parts = `refs/heads/${branch}`.split("/");
  for (let i = 3; i <= parts.length; i += 1) written.push(path.join(user.commonDir, ...parts.slice(0, i)));
  for (const file of written) {
    const info = await lstat(file).catch(() => null);
    if (info && info.uid === 0) await lchown(file, user.owner.uid, user.owner.gid);
  }
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
