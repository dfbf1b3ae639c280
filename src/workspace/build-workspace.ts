import { chown, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../logging/logger.js";
import type { CheckoutPaths } from "./checkout-paths.js";
import type { ExtensionFiles } from "./extract-repo-extensions.js";
import { chownTree, removeTree } from "./fs-util.js";
import type { GitRepoLocation, HostGit } from "./git-host.js";
import { createCheckoutReader } from "./git-port.js";
import { createLocalWorktrees } from "./local-worktrees.js";
import { createPublishRepo, verifiedTip, type PublishRepo } from "./publish-repo.js";
import { restoreRepoExtensions } from "./restore-repo-extensions.js";
import type { SandboxIdentity, SandboxMode } from "./sandbox.js";
import { assemblePorts, type CommitAuthor, type PortsInput, type Workspace } from "./workspace.js";

/** Where a published commit goes: a server job's remote, or a local run's hand-over to the user's repository. */
export interface PublishTarget {
  /** Object directories the host's publish repository borrows from (the host's or the user's, never the checkout's). */
  alternates: readonly string[];
  /**
   * Instead of borrowing: copies what the publish repository needs into it, by someone else's git (a
   * local run as root: the user's repository's owner reads it, so root's git never follows a path the
   * owner controls, such as their alternates or a loose object that is a symlink).
   */
  copyIn?: (to: GitRepoLocation) => Promise<void>;
  /** What the change is measured from. */
  from: string;
  /** The base branch's tip when it is not `from` (a pull request's head): its content counts as known. */
  base?: string;
  /** The tip the destination has already (null: none); publishing it again sends nothing. */
  current: string | null;
  /** Refusals that come before anything is read from the checkout. */
  precheck?: () => void;
  /** Sends `sha`, verified in `publish`, on to the destination, whose tip was `previous`. */
  deliver(input: { publish: PublishRepo; sha: string; previous: string | null; token?: string; signal?: AbortSignal }): Promise<void>;
}

export interface BuildWorkspaceOptions {
  git: HostGit;
  /** The checkout, already on `branch` at `startSha`, and the paths beside it (cleared by the caller's claim). */
  paths: CheckoutPaths;
  branch: string;
  baseBranch: string;
  baseSha: string;
  startSha: string;
  sandbox: SandboxMode;
  /** Who commands run as (and owns the checkout) when Tackle runs as root; null when it is not root. */
  owner: SandboxIdentity | null;
  /** Object directories the checkout borrows through its alternates: read-only in the sandbox. */
  borrowed: readonly string[];
  /**
   * `borrowed` belongs to `owner`, who reaches it: bound by that user, not staged by root (a local
   * run as the repository's owner). @defaultValue false
   */
  borrowedByOwner?: boolean;
  templateDir: string;
  author: CommitAuthor;
  logger?: Logger;
  publish: PublishTarget;
  /** The repository's agents and skills, extracted into `paths.extensionsDir`. @defaultValue null (none) */
  extensionFiles?: ExtensionFiles | null;
  /** Takes the finished checkout for a later job (true: it is not removed). @defaultValue the checkout is removed */
  recycle?: (root: string) => Promise<boolean>;
  /** Offers extra worktrees beside the checkout (a local run's Worktree tool). @defaultValue false */
  worktrees?: boolean;
}

/**
 * A checkout handed to the agent, for server jobs and local runs alike. From here on the host runs
 * no git on the checkout's `.git`: what it publishes it reads through the sandbox and decides in
 * its own publish repository beside the checkout, which the sandbox does not see.
 */
export async function buildWorkspace(options: BuildWorkspaceOptions): Promise<Workspace> {
  const { git, paths, branch, baseSha, owner, publish: target } = options;
  const extensionFiles = options.extensionFiles ?? null;
  const root = paths.root;
  const gitDir = path.join(root, ".git");
  const repo = { gitDir, workTree: root };

  const hooksDir = path.join(gitDir, "hooks");
  await mkdir(hooksDir, { recursive: true });
  await mkdir(paths.homeDir, { recursive: true, mode: 0o700 });
  await mkdir(paths.tmpDir, { recursive: true, mode: 0o700 });
  const protectedPaths = [path.join(gitDir, "config"), hooksDir, path.join(gitDir, "objects", "info", "alternates")];
  if (owner) {
    await chownTree(root, owner);
    // Plain chown is enough below: the home and hooks directories were just made, empty (the claim
    // cleared the home; the template has no hooks).
    await chown(paths.homeDir, owner.uid, owner.gid);
    await chown(paths.tmpDir, owner.uid, owner.gid);
    // Git's own settings stay root's: read-only inside the sandbox, and not the agent's even outside it.
    for (const p of protectedPaths) await chown(p, 0, 0);
  }

  const portsInput: PortsInput = {
    root,
    repo,
    mode: options.sandbox,
    owner,
    ...(options.borrowedByOwner === true ? { extraReadOnly: [], identityReadOnly: [...options.borrowed] } : { extraReadOnly: [...options.borrowed] }),
    sharedReadOnly: extensionFiles ? [extensionFiles.dir] : [],
    // Without bubblewrap only ownership guards the extracted files, and not at all where commands run
    // as Tackle's own uid: the host puts them back before each command instead.
    ...(extensionFiles && options.sandbox === "off" ? { beforeEachCommand: () => restoreRepoExtensions(extensionFiles, options.logger) } : {}),
    // `.git` as its own mount point cannot be renamed or replaced from inside.
    extraWritable: [gitDir],
    readOnlyInside: protectedPaths,
    homeDir: paths.homeDir,
    tmpDir: paths.tmpDir,
    author: options.author,
    ...(options.logger ? { logger: options.logger } : {}),
  };
  const ports = assemblePorts(portsInput);
  const worktrees =
    options.worktrees === true ? createLocalWorktrees({ main: { branch, ports, input: portsInput }, dir: paths.worktreesDir, owner }) : undefined;
  const reader = createCheckoutReader({ sandbox: ports.exec, repo });
  let publish: PublishRepo | undefined;
  let current = target.current;
  let published: string | null = null;
  let disposed: Promise<void> | undefined;

  return {
    root: ports.fs.root,
    branch,
    baseBranch: options.baseBranch,
    baseSha,
    startSha: options.startSha,
    ...ports,
    sandboxed: ports.exec.sandboxed,
    extensionFiles,
    ...(worktrees === undefined ? {} : { worktrees }),

    async push({ token, signal, verify, approve }) {
      target.precheck?.();
      if (publish === undefined) {
        const created = await createPublishRepo(git, paths.publishDir, target.alternates, options.templateDir);
        await target.copyIn?.({ gitDir: created.gitDir });
        publish = created;
      }
      const { sha } = await verifiedTip({
        publish,
        reader,
        branch,
        from: target.from,
        ...(target.base !== undefined ? { base: target.base } : {}),
        // The publish repository has these through its alternates (or its copy) already.
        exclude: [...new Set([target.base ?? target.from, target.from])],
        verify,
        approve,
        ...(signal ? { signal } : {}),
      });
      if (sha === current) return { sha, pushed: false };
      await target.deliver({ publish, sha, previous: current, ...(token !== undefined ? { token } : {}), ...(signal ? { signal } : {}) });
      current = sha;
      published = sha;
      return { sha, pushed: true };
    },

    commitsAhead: () => reader.countAhead(baseSha, branch),

    /** The patch of what was last published, from the host's own objects (empty before). */
    async formatPatch() {
      return publish && published ? publish.formatPatch(baseSha, published) : "";
    },

    dispose() {
      disposed ??= (async () => {
        const recycle = options.recycle;
        // Everything of the job is killed first (the extra worktrees' processes too, which write to the
        // checkout's .git); its checkout is recycled only when no process of the job is left that could still write to it.
        const extrasQuiet = (await worktrees?.dispose()) ?? true;
        const quiet = (await ports.exec.dispose()) && extrasQuiet;
        const kept = recycle !== undefined && quiet && (await recycle(root).catch(() => false));
        if (!kept) await removeTree(root);
        await removeTree(paths.publishDir);
        await removeTree(paths.homeDir);
        await removeTree(paths.tmpDir);
        await removeTree(paths.extensionsDir);
        await removeTree(paths.metaPath);
      })();
      return disposed;
    },
  };
}
