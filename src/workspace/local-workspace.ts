import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { chownRootOwned, chownTree, exists, removeTree } from "./fs-util.js";
import { createHostGit, validateBranchName, type GitRepoLocation, type HostGit } from "./git-host.js";
import { currentOwner, isCurrentProcess, isOwnerAlive, parseOwnerRecord } from "./owner-record.js";
import { isRoot, type SandboxIdentity, type SandboxMode } from "./sandbox.js";
import { assemblePorts, DEFAULT_AUTHOR, type CommitAuthor, type Workspace } from "./workspace.js";

export interface LocalWorkspaceOptions {
  /** The user's repository (any directory inside it). */
  repoPath: string;
  /** A new branch, created from the repository's current HEAD. */
  branch: string;
  /** TACKLE_HOME; the worktree goes to `${home}/local/<slug>`. */
  home: string;
  sandbox: SandboxMode;
  logger?: Logger;
  /** @defaultValue {@link DEFAULT_AUTHOR} */
  author?: CommitAuthor;
}

const STALE_AFTER_MS = 7 * 24 * 3600_000;

/**
 * `tackle run --local PATH`: a `git worktree` of the user's repository on a new branch, so their
 * working tree is untouched and the commits land in their repository. The sandbox sees the
 * worktree and the repository's git database (objects and refs must be writable for commits to
 * land), never the user's working tree; the repository's config and hooks are read-only in it.
 */
export async function openLocalWorkspace(options: LocalWorkspaceOptions): Promise<Workspace> {
  const home = path.resolve(options.home);
  const git = createHostGit({ gitHome: path.join(home, "git-home"), ...(options.logger ? { logger: options.logger } : {}) });
  // The user named this repository; it may belong to another uid than Tackle's.
  const trust = ["-c", "safe.directory=*"];
  const userRepo = path.resolve(options.repoPath);
  const located = await git
    .run({ args: [...trust, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], cwd: userRepo })
    .catch((error: unknown) => {
      throw new TackleError("workspace", `${userRepo} is not inside a git repository with a working tree`, { cause: error });
    });
  const [topLevel = "", commonDir = ""] = located.stdout.split("\n").map((line) => line.trim());
  const mainRepo: GitRepoLocation = { gitDir: commonDir, workTree: topLevel };
  const headSha = (
    await git.run({ args: ["rev-parse", "--verify", "HEAD^{commit}"], repo: mainRepo }).catch((error: unknown) => {
      throw new TackleError("workspace", `${topLevel} has no commits yet; commit something first`, { cause: error });
    })
  ).stdout.trim();
  const headName = await git.run({ args: ["symbolic-ref", "--quiet", "--short", "HEAD"], repo: mainRepo, okExitCodes: [0, 1] });
  const baseBranch = headName.exitCode === 0 ? headName.stdout.trim() : "HEAD";

  const branch = await validateBranchName(git, options.branch);
  const branchExists = await git.run({ args: ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repo: mainRepo, okExitCodes: [0, 1] });
  if (branchExists.exitCode === 0) {
    throw new TackleError("workspace", `branch ${branch} already exists in ${topLevel}; pick another name or delete it`);
  }

  const slug = branch.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+/, "");
  const root = path.join(home, "local", slug);
  const metaPath = `${root}.json`;
  const homeDir = `${root}.home`;
  await mkdir(path.dirname(root), { recursive: true });
  await pruneStaleLocal(git, path.dirname(root));
  await clearLeftover(git, mainRepo, root, metaPath);
  await writeFile(metaPath, JSON.stringify({ ...(await currentOwner()), commonDir, branch }));

  await git.run({ args: ["worktree", "add", "--quiet", "-b", branch, root, headSha], repo: mainRepo });
  const wtGitDir = (await git.run({ args: [...trust, "rev-parse", "--path-format=absolute", "--git-dir"], cwd: root })).stdout.trim();
  const repo: GitRepoLocation = { gitDir: wtGitDir, commonDir, workTree: root };
  await mkdir(homeDir, { recursive: true, mode: 0o700 });

  // Paths that must be read-only inside the sandbox; created (empty) when missing so they can be bound.
  const hooksDir = path.join(commonDir, "hooks");
  const alternates = path.join(commonDir, "objects", "info", "alternates");
  await mkdir(hooksDir, { recursive: true });
  await mkdir(path.dirname(alternates), { recursive: true });
  const createdAlternates = !(await exists(alternates));
  if (createdAlternates) await writeFile(alternates, "");
  // commondir and gitdir tie the worktree to the repository; git's ref backend trusts commondir even
  // when GIT_COMMON_DIR is set, so neither may change.
  const readOnlyInside = [
    path.join(commonDir, "config"),
    hooksDir,
    alternates,
    path.join(root, ".git"),
    path.join(wtGitDir, "commondir"),
    path.join(wtGitDir, "gitdir"),
  ];
  const worktreeConfig = await git.run({ args: ["config", "--bool", "extensions.worktreeConfig"], repo, okExitCodes: [0, 1] });
  if (worktreeConfig.stdout.trim() === "true") {
    const file = path.join(wtGitDir, "config.worktree");
    if (!(await exists(file))) await writeFile(file, "");
    readOnlyInside.push(file);
  }
  const borrowed = (await readFile(alternates, "utf8"))
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("/"));

  const owner = await localOwner(options.sandbox, commonDir);
  if (owner) {
    await chownTree(root, owner);
    await chownTree(homeDir, owner);
    // `worktree add` ran as root: the new ref, its reflog and the worktree's admin dir are root's.
    await chownRootOwned(commonDir, owner);
  }

  const ports = assemblePorts({
    root,
    repo,
    mode: options.sandbox,
    owner,
    extraReadOnly: borrowed,
    extraWritable: [commonDir, wtGitDir],
    readOnlyInside,
    homeDir,
    author: options.author ?? DEFAULT_AUTHOR,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  let disposed: Promise<void> | undefined;

  return {
    root: ports.fs.root,
    branch,
    baseBranch,
    baseSha: headSha,
    startSha: headSha,
    ...ports,
    sandboxed: ports.exec.sandboxed,

    async push() {
      throw new TackleError("push_refused", `there is no remote in a local run; the branch ${branch} holds the work`);
    },

    async commitsAhead() {
      const { stdout } = await git.run({ args: ["rev-list", "--count", `${headSha}..refs/heads/${branch}`], repo });
      return Number(stdout.trim());
    },

    async formatPatch() {
      const { stdout } = await git.run({ args: ["format-patch", "--stdout", "--binary", "--no-color", `${headSha}..refs/heads/${branch}`], repo });
      return stdout;
    },

    dispose() {
      disposed ??= (async () => {
        await git.run({ args: ["worktree", "remove", "--force", root], repo: mainRepo, okExitCodes: [0, 128] });
        await removeTree(root);
        await git.run({ args: ["worktree", "prune"], repo: mainRepo, okExitCodes: [0, 128] });
        await removeTree(homeDir);
        await removeTree(metaPath);
        if (createdAlternates && (await readFile(alternates, "utf8").catch(() => "x")) === "") await removeTree(alternates);
      })();
      return disposed;
    },
  };
}

/**
 * As root, the sandbox runs as the repository's owner so the objects it writes stay the user's.
 * A root-owned repository keeps root's uid (mapped, without capabilities); see SandboxOptions.identity.
 */
async function localOwner(mode: SandboxMode, commonDir: string): Promise<SandboxIdentity | null> {
  if (mode !== "bwrap" || !isRoot()) return null;
  const info = await stat(commonDir);
  return info.uid === 0 ? null : { uid: info.uid, gid: info.gid };
}

/** Worktrees of earlier runs that crashed (their owner is gone): removed, their branches kept. */
async function pruneStaleLocal(git: HostGit, localDir: string): Promise<void> {
  for (const entry of await readdir(localDir).catch(() => [] as string[])) {
    if (!entry.endsWith(".json")) continue;
    const metaPath = path.join(localDir, entry);
    const text = await readFile(metaPath, "utf8").catch(() => null);
    const owner = text === null ? null : parseOwnerRecord(text);
    if (!owner || (await isOwnerAlive(owner, STALE_AFTER_MS))) continue;
    const { commonDir } = JSON.parse(text ?? "{}") as { commonDir?: unknown };
    const root = metaPath.slice(0, -".json".length);
    if (typeof commonDir === "string" && (await exists(commonDir))) {
      const repo = { gitDir: commonDir };
      await git.run({ args: ["worktree", "remove", "--force", root], repo, okExitCodes: [0, 128] });
      await git.run({ args: ["worktree", "prune"], repo, okExitCodes: [0, 128] });
    }
    await removeTree(root);
    await removeTree(`${root}.home`);
    await removeTree(metaPath);
  }
}

/** A worktree left by a crashed run: removed when its owner is gone, refused when it is alive. */
async function clearLeftover(git: HostGit, mainRepo: GitRepoLocation, root: string, metaPath: string): Promise<void> {
  const text = await readFile(metaPath, "utf8").catch(() => null);
  const owner = text === null ? null : parseOwnerRecord(text);
  if (owner && !isCurrentProcess(owner) && (await isOwnerAlive(owner, STALE_AFTER_MS))) {
    throw new TackleError("workspace", `${root} is in use by another run (pid ${owner.pid})`);
  }
  if (await exists(root)) {
    await git.run({ args: ["worktree", "remove", "--force", root], repo: mainRepo, okExitCodes: [0, 128] });
    await removeTree(root);
  }
  await git.run({ args: ["worktree", "prune"], repo: mainRepo, okExitCodes: [0, 128] });
}
