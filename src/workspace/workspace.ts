import type { ExecPort, GitPort, PublishApproval, PublishedChange, PublishVerdict, SearchPort } from "../agent/ports.js";
import type { Logger } from "../logging/logger.js";
import type { GitRepoLocation } from "./git-host.js";
import { createGitPort } from "./git-port.js";
import type { LocalWorktrees } from "./local-worktrees.js";
import { createPathGuard, type GuardedFs } from "./path-guard.js";
import { createSandboxExec, type NamespaceHolder, type Sandbox, type SandboxIdentity, type SandboxMode, type SandboxOptions } from "./sandbox.js";
import { createSearch, ripgrepBinary } from "./search.js";

/** One job's working copy and the ports bound to it. */
export interface Workspace {
  /** The worktree (realpath). */
  root: string;
  branch: string;
  baseBranch: string;
  /** Tip of the base branch when the workspace was prepared. */
  baseSha: string;
  /** HEAD when the agent got the workspace. */
  startSha: string;
  /** The checkout's own ports (the host's end-of-run steps use them, whichever worktree the session is in). */
  fs: GuardedFs;
  exec: ExecPort;
  search: SearchPort;
  git: GitPort;
  sandboxed: boolean;
  /**
   * `.tackle/agents`, `.tackle/skills` and `.claude/skills` of the default branch's commit at job start
   * (a local run: HEAD's commit), extracted by the host into `dir`, which it owns; bound read-only at
   * the same path inside the sandbox, and readable with the file tools. null when the commit has none.
   */
  extensionFiles: { dir: string; commit: string } | null;
  /**
   * Publishes the tip of `branch`: the host copies its commits into a repository only it writes,
   * computes the change there against the sha it recorded at prepare, asks `verify`, and only then
   * pushes that exact sha to origin's `branch` with a one-shot credential (a local run hands it
   * over to the user's repository instead). Throws TackleError("push_refused") with the reason
   * when `verify` refuses; nothing leaves the job then.
   */
  push(options: PushOptions): Promise<{ sha: string; pushed: boolean }>;
  /** Commits on `branch` that are not on the base (baseSha..branch). */
  commitsAhead(): Promise<number>;
  /** Patch (git format-patch) of baseSha..branch; empty when there are no commits. */
  formatPatch(): Promise<string>;
  /**
   * A local run's extra worktrees (the Worktree tool), when it asked for them: the agent's tools get
   * their `ports`, which follow the session from checkout to checkout. Only `branch` is ever published.
   */
  worktrees?: LocalWorktrees;
  /** Removes the worktree (and any extra ones, their processes killed first); safe to call twice. */
  dispose(): Promise<void>;
}

export interface PushOptions {
  /** The installation token for the push; unused by a local run. */
  token?: string;
  signal?: AbortSignal;
  /** The policy's verdict on the change, decided before anything is published. */
  verify: (change: PublishedChange) => PublishVerdict;
  /** Asked when the verdict wants a maintainer's word; without it, such a change is refused. @defaultValue none */
  approve?: PublishApproval | undefined;
}

export interface CommitAuthor {
  name: string;
  email: string;
}

/** @defaultValue for the author of commits the agent makes. */
export const DEFAULT_AUTHOR: CommitAuthor = { name: "tackle", email: "tackle@users.noreply.github.com" };

export function authorEnv(author: CommitAuthor): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
}

export interface PortsInput {
  root: string;
  repo: GitRepoLocation;
  mode: SandboxMode;
  /** Who commands run as (and owner of new files) when Tackle runs as root, in every mode; null when it is not root. */
  owner: SandboxIdentity | null;
  extraReadOnly: string[];
  /** Read-only, bound by the command identity itself (see SandboxOptions.identityReadOnly). @defaultValue none */
  identityReadOnly?: readonly string[];
  /**
   * Host directories both the sandbox (read-only, at the same path) and the file tools (read, never
   * write, by absolute path) see: the repository's skills and agents. @defaultValue none
   */
  sharedReadOnly?: readonly string[];
  /** See SandboxOptions.beforeEachCommand. @defaultValue nothing */
  beforeEachCommand?: () => Promise<unknown>;
  extraWritable: string[];
  readOnlyInside: string[];
  homeDir?: string;
  /** The job's /tmp, shared by its commands. */
  tmpDir?: string;
  author: CommitAuthor;
  logger?: Logger;
  /** Another checkout's network namespace, shared (a local run's worktrees share the main checkout's). */
  sharedNamespace?: NamespaceHolder;
}

/** The ports of one checkout: the main one, or a local run's extra worktree. */
export interface CheckoutPorts {
  fs: GuardedFs;
  exec: Sandbox;
  search: SearchPort;
  git: GitPort;
}

/** How a checkout's commands are boxed, one command at a time (no job namespace). */
export function sandboxOptionsOf(input: PortsInput): SandboxOptions {
  return {
    root: input.root,
    mode: input.mode,
    extraReadOnly: [...input.extraReadOnly, ...(input.sharedReadOnly ?? [])],
    ...(input.identityReadOnly ? { identityReadOnly: input.identityReadOnly } : {}),
    extraWritable: input.extraWritable,
    readOnlyInside: input.readOnlyInside,
    ...(input.owner ? { identity: input.owner } : {}),
    env: authorEnv(input.author),
    ...(input.homeDir !== undefined ? { homeDir: input.homeDir } : {}),
    ...(input.tmpDir !== undefined ? { tmpDir: input.tmpDir } : {}),
    ...(input.logger ? { logger: input.logger } : {}),
    ...(input.sharedNamespace ? { sharedNamespace: input.sharedNamespace } : {}),
    ...(input.beforeEachCommand ? { beforeEachCommand: input.beforeEachCommand } : {}),
  };
}

export function assemblePorts(input: PortsInput): CheckoutPorts {
  // One loopback for the whole job: a server one command starts is there for the next.
  const boxed = sandboxOptionsOf(input);
  // With bubblewrap, Grep and Glob run ripgrep as a process of the job (see SearchOptions.sandbox): its binary is bound in.
  const exec = createSandboxExec({
    ...boxed,
    ...(input.mode === "bwrap" ? { extraReadOnly: [...(boxed.extraReadOnly ?? []), ripgrepBinary] } : {}),
    jobNamespace: true,
  });
  // The guard's reads run with this checkout's processes paused.
  const fs = createPathGuard(input.root, {
    owner: input.owner,
    readOnlyDirs: input.sharedReadOnly ?? [],
    ...(exec.pausing ? { pausing: exec.pausing.bind(exec) } : {}),
  });
  return {
    fs,
    exec,
    // With bubblewrap, ripgrep is one of the job's processes: an ignore file it opens by path (a symlink
    // the agent made) leads where the commands could go, not where the host can. Without, the pause
    // cannot hold a process that detached itself: root's ripgrep would walk what it swaps in, so it
    // runs as the commands' identity.
    search: createSearch(input.root, input.mode === "bwrap" ? { sandbox: exec } : { runAs: input.mode === "off" ? input.owner : null }),
    git: createGitPort({ sandbox: exec, repo: { ...input.repo, workTree: input.root }, files: fs }),
  };
}
