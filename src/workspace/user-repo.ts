import { lstat, stat } from "node:fs/promises";
import path from "node:path";
import { errorMessage, TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { createHostGit, type GitRepoLocation, type HostGit } from "./git-host.js";
import { transferCommits } from "./publish-repo.js";
import { isRoot } from "./sandbox-network.js";
import { DEFAULT_IDENTITY, type SandboxIdentity } from "./sandbox-plan.js";

/**
 * The user's repository in a local run. Everything Tackle does in it goes through here, as the
 * repository's owner: when Tackle is root, its git commands drop to that user with setpriv (as
 * sandboxed commands do), so the kernel applies the owner's permissions. A symlink planted in their
 * `.git` (a ref, `objects/pack`, `packed-refs`, a reflog) reaches only what they could reach
 * themselves; root never writes, chowns or reads a file there on their behalf. When the owner is
 * root itself, there is nobody to drop to: root writes only after checking that no directory on the
 * written paths is a symlink or writable by anyone but root (so nobody else can swap one in).
 */
export interface UserRepo {
  topLevel: string;
  /** The repository's own git dir (the common dir of a linked worktree). */
  commonDir: string;
  repo: GitRepoLocation;
  headSha: string;
  /** The branch HEAD is on, or "HEAD" when detached. */
  baseBranch: string;
  /** Its object directory and every one it borrows from, absolute, as its owner's git sees them. */
  objectDirs: string[];
  /** Who owns its git dir. */
  owner: SandboxIdentity;
  /** Git as the owner: the only git that touches this repository. */
  git: HostGit;
}

/**
 * Who agent commands run as when Tackle is root: never uid 0 nor gid 0. The owner of the user's
 * repository (so it can read the borrowed objects), or the sandbox identity when that is root.
 */
export function commandIdentity(owner: SandboxIdentity): SandboxIdentity {
  if (owner.uid === 0) return DEFAULT_IDENTITY;
  return { uid: owner.uid, gid: owner.gid === 0 ? DEFAULT_IDENTITY.gid : owner.gid };
}

/** Git as `owner` when Tackle is root and the owner is not (its group never root's either). */
function gitAs(owner: SandboxIdentity, gitHome: string, logger?: Logger): HostGit {
  const drop = isRoot() && owner.uid !== 0;
  return createHostGit({ gitHome, ...(logger ? { logger } : {}), ...(drop ? { runAs: commandIdentity(owner) } : {}) });
}

/** What the user named, located by its owner's git; its git dir must belong to the same user. */
export async function locateUserRepo(options: { userPath: string; gitHome: string; logger?: Logger }): Promise<UserRepo> {
  const { userPath } = options;
  const named = await stat(userPath).catch((error: unknown) => {
    throw new TackleError("workspace", `${userPath} cannot be read`, { cause: error });
  });
  const git = gitAs({ uid: named.uid, gid: named.gid }, options.gitHome, options.logger);
  // The user named this repository; it may belong to another uid than Tackle's.
  const located = await git
    .run({
      args: ["-c", "safe.directory=*", "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"],
      cwd: userPath,
    })
    .catch((error: unknown) => {
      // As root, git ran as the path's owner: what that user cannot reach is refused here (git's reason says so).
      const reason =
        errorMessage(error)
          .split("\n")
          .at(-1)
          ?.replace(/^.*?: fatal: /, "") ?? "";
      throw new TackleError("workspace", `${userPath} is not inside a git repository with a working tree its owner can read (${reason})`, { cause: error });
    });
  const [topLevel = "", gitDir = "", commonDir = ""] = located.stdout.split("\n").map((line) => line.trim());
  const info = await stat(commonDir);
  if (info.uid !== named.uid) {
    throw new TackleError("workspace", `${commonDir} belongs to uid ${info.uid}, but ${userPath} to uid ${named.uid}; name a path of the repository's owner`);
  }
  const repo: GitRepoLocation = { gitDir, commonDir, workTree: topLevel };
  const head = await git.run({ args: ["rev-parse", "--verify", "HEAD^{commit}"], repo }).catch((error: unknown) => {
    throw new TackleError("workspace", `${topLevel} has no commits yet; commit something first`, { cause: error });
  });
  const headName = await git.run({ args: ["symbolic-ref", "--quiet", "--short", "HEAD"], repo, okExitCodes: [0, 1] });
  return {
    topLevel,
    commonDir,
    repo,
    headSha: head.stdout.trim(),
    baseBranch: headName.exitCode === 0 ? headName.stdout.trim() : "HEAD",
    objectDirs: await objectDirsOf(git, repo, commonDir),
    owner: { uid: info.uid, gid: info.gid },
    git,
  };
}

/**
 * The object directory and the ones it borrows from, as git run by the owner loads them (so none
 * the owner cannot read). Null when a path is one git had to quote: then nothing is borrowed.
 */
async function objectDirsOf(git: HostGit, repo: GitRepoLocation, commonDir: string): Promise<string[]> {
  const counted = await git.run({ args: ["count-objects", "-v"], repo });
  const alternates = counted.stdout
    .split("\n")
    .filter((line) => line.startsWith("alternate: "))
    .map((line) => line.slice("alternate: ".length));
  if (alternates.some((dir) => dir.startsWith('"') || !path.isAbsolute(dir))) {
    throw new TackleError("workspace", `${commonDir}/objects borrows from a directory with an unusual name; run git repack -a -d there first`);
  }
  return [...new Set([path.join(commonDir, "objects"), ...alternates])];
}

/** Past this a configuration or instruction file at HEAD counts as absent. */
const MAX_HEAD_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Files of the repository at HEAD (those that exist), read by its owner's git: what a local run
 * takes as the default branch's configuration and instructions. Empty when `userPath` is no repository.
 */
export async function readUserFilesAtHead(options: { userPath: string; home: string; files: readonly string[] }): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const user = await locateUserRepo({ userPath: options.userPath, gitHome: path.join(options.home, "git-home") }).catch(() => null);
  if (user === null) return found;
  for (const file of options.files) {
    const shown = await user.git.runBytes({ args: ["cat-file", "blob", `${user.headSha}:${file}`], repo: user.repo, maxBytes: MAX_HEAD_FILE_BYTES });
    if (shown.exitCode === 0) found.set(file, shown.stdout.toString("utf8"));
  }
  return found;
}

/**
 * The hand-over: `sha`, checked in the host's repository `from`, into the user's repository as one
 * pack (copied out by the host's git, indexed by the owner's) and the one new ref `branch`, written
 * by the owner's git with hooks and reflogs off.
 */
export async function handOverInto(
  user: UserRepo,
  options: { hostGit: HostGit; from: GitRepoLocation; sha: string; branch: string; previous: string | null },
): Promise<void> {
  const ref = `refs/heads/${options.branch}`;
  if (isRoot() && user.owner.uid === 0) await assertRootWritable(user.commonDir, ref);
  await transferCommits(options.hostGit, {
    from: options.from,
    to: { gitDir: user.commonDir },
    toGit: user.git,
    tip: options.sha,
    exclude: [user.headSha],
  });
  await user.git.run({
    args: ["-c", "core.logAllRefUpdates=false", "update-ref", "--no-deref", ref, options.sha, options.previous ?? ""],
    repo: { gitDir: user.commonDir },
  });
}

/**
 * Before root writes into a root-owned repository: every directory git will write in (the pack
 * directory, the ref's and its reflog's) and every one above it up to the git dir is a real
 * directory, root's, and writable by nobody else, and the ref's reflog does not exist (git appends
 * to one it finds, whatever it is). Nobody but root can then put a symlink on those paths.
 */
async function assertRootWritable(commonDir: string, ref: string): Promise<void> {
  const parts = ref.split("/");
  const dirs = [[], ["objects"], ["objects", "pack"]];
  for (const top of [[], ["logs"]]) for (let i = 1; i < parts.length; i += 1) dirs.push([...top, ...parts.slice(0, i)]);
  for (const dir of dirs) {
    const full = path.join(commonDir, ...dir);
    const info = await lstat(full).catch(() => null);
    if (info === null) continue;
    const othersWrite = (info.mode & 0o002) !== 0 || ((info.mode & 0o020) !== 0 && info.gid !== 0);
    if (!info.isDirectory() || info.uid !== 0 || othersWrite) {
      throw new TackleError("workspace", `${full} is not a directory only root can write (a symlink?); nothing was handed over into ${commonDir}`);
    }
  }
  for (const leaf of [ref, path.join("logs", ref)]) {
    if ((await lstat(path.join(commonDir, leaf)).catch(() => null)) !== null) {
      throw new TackleError("workspace", `${path.join(commonDir, leaf)} already exists; nothing was handed over into ${commonDir}`);
    }
  }
}
