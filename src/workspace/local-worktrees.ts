import { chown, lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import type { WorktreeInfo, WorktreePort } from "../agent/ports.js";
import { errorMessage, TackleError } from "../errors/index.js";
import { forwardingPorts, type RootPorts } from "./forwarding-ports.js";
import { removeTree } from "./fs-util.js";
import { gitLocationEnv, hardeningArgs, type GitRepoLocation } from "./git-host.js";
import { createSandboxExec, type SandboxIdentity } from "./sandbox.js";
import { assemblePorts, sandboxOptionsOf, type CheckoutPorts, type PortsInput } from "./workspace.js";

/** What a worktree may be called: it becomes a directory name and the end of a branch name. */
const NAME = /^[a-z0-9-]{1,40}$/;
/** The run's own checkout, as the tool names it. */
const MAIN = "main";
/** Extra worktrees at once: each is a whole checkout on disk, and a sandbox. */
export const MAX_WORKTREES = 10;
const GIT_TIMEOUT_MS = 120_000;

export interface LocalWorktreesOptions {
  /** The main checkout: its branch, its ports, and the sandbox input they were built from. */
  main: { branch: string; ports: CheckoutPorts; input: PortsInput };
  /** Where the extra worktrees go, one directory each: beside the main checkout, never inside it. */
  dir: string;
  /** Who owns the worktrees' files when Tackle runs as root (the sandbox user); null otherwise. */
  owner: SandboxIdentity | null;
}

export interface LocalWorktrees {
  /** Ports that follow the session's current worktree: the ones the agent's tools get. */
  readonly ports: RootPorts;
  /** What the Worktree tool drives. */
  readonly port: WorktreePort;
  /** The branches of the extra worktrees there are now: the run drops them, it hands back only the main one. */
  branches(): string[];
  /** Kills every extra worktree's processes and removes them; resolves with whether none of their processes is left. */
  dispose(): Promise<boolean>;
}

interface Entry {
  name: string;
  branch: string;
  root: string;
  ports: CheckoutPorts;
}

/**
 * A local run's extra worktrees, made with `git worktree add` in the job's private repository. Each is
 * boxed like the main checkout (its own sandbox with the same binds: the repository's `.git` writable
 * but its config, hooks and alternates read-only, and the worktree's own `.git` file read-only too), and
 * the host runs git on none of them: `git worktree add` runs in a one-command sandbox over the new
 * directory, and removal in the main checkout's sandbox. What the sandboxes write in the repository's
 * `.git/worktrees/` is theirs; the host reads nothing there and only deletes the directories it made.
 */
export function createLocalWorktrees(options: LocalWorktreesOptions): LocalWorktrees {
  const main: Entry = { name: MAIN, branch: options.main.branch, root: options.main.ports.fs.root, ports: options.main.ports };
  const mainInput = options.main.input;
  const commonDir = mainInput.repo.gitDir;
  const extras = new Map<string, Entry>();
  let current = main;
  let disposed = false;

  /** The main checkout's sandbox input with another root, whose `.git` file is bound read-only. */
  const inputFor = (root: string): PortsInput => ({
    ...mainInput,
    root,
    repo: { gitDir: path.join(root, ".git"), commonDir },
    readOnlyInside: [...mainInput.readOnlyInside, path.join(root, ".git")],
    // One loopback for the run: a server started in one worktree answers a command in another.
    sharedNamespace: options.main.ports.exec.namespace,
  });

  const find = (name: string): Entry => {
    if (name === MAIN) return main;
    const entry = extras.get(name);
    if (entry === undefined) {
      const names = [MAIN, ...extras.keys()].join(", ");
      throw new TackleError("invalid_input", `there is no worktree named "${name}"; the worktrees are: ${names}`);
    }
    return entry;
  };

  async function create(name: string, signal?: AbortSignal): Promise<WorktreeInfo> {
    assertUsable();
    assertName(name);
    if (name === MAIN || extras.has(name)) throw new TackleError("invalid_input", `a worktree named "${name}" already exists; pick another name`);
    if (extras.size >= MAX_WORKTREES) {
      throw new TackleError("invalid_input", `there are already ${MAX_WORKTREES} worktrees; remove one you no longer need first`);
    }
    const branch = `${main.branch}-${name}`;
    if ((await main.ports.git.listBranches()).includes(branch)) {
      throw new TackleError("invalid_input", `the branch ${branch} already exists; pick another worktree name`);
    }
    const [head] = await current.ports.git.log(1);
    if (head === undefined || !/^[0-9a-f]{40,64}$/.test(head.sha)) throw new TackleError("git", "the current worktree's HEAD cannot be read");

    const root = await makeDirectory(name);
    try {
      await addWorktree(root, branch, head.sha, signal);
      const entry: Entry = { name, branch, root, ports: assemblePorts(inputFor(root)) };
      extras.set(name, entry);
      return describe(entry, { sha: head.sha, subject: head.subject, branch });
    } catch (error) {
      await dropFromRepository(root, branch).catch(() => undefined);
      await removeTree(root);
      throw error;
    }
  }

  /** An empty directory for the worktree, the sandbox user's, at its real path. */
  async function makeDirectory(name: string): Promise<string> {
    await mkdir(options.dir, { recursive: true, mode: 0o755 });
    const dir = await realpath(options.dir);
    const root = path.join(dir, name);
    // Only a failed create could have left one; no sandbox sees this directory before the worktree is in it.
    await removeTree(root);
    await mkdir(root, { mode: 0o755 });
    if (options.owner) await chown(root, options.owner.uid, options.owner.gid);
    return root;
  }

  /**
   * `git worktree add` in a sandbox of its own over the new (empty) directory, as the sandbox user: the
   * repository's `.git` is the agent's to write, so the host runs no git on it.
   */
  async function addWorktree(root: string, branch: string, startSha: string, signal?: AbortSignal): Promise<void> {
    const box = createSandboxExec(sandboxOptionsOf({ ...inputFor(root), readOnlyInside: mainInput.readOnlyInside }));
    try {
      const result = await box.runArgv(["git", ...hardeningArgs(), "worktree", "add", "--quiet", "-b", branch, root, startSha], {
        timeoutMs: GIT_TIMEOUT_MS,
        env: gitEnv({ gitDir: commonDir }),
        ...(signal ? { signal } : {}),
      });
      if (result.timedOut) throw new TackleError("git", "git worktree add timed out");
      if (result.exitCode !== 0) throw new TackleError("git", `git worktree add failed: ${result.stderr.trim().slice(-2000)}`);
    } finally {
      await box.dispose();
    }
    const gitFile = path.join(root, ".git");
    const info = await lstat(gitFile).catch(() => null);
    // It stays the sandbox user's (git refuses a `.git` file of another owner); the sandbox binds it read-only.
    if (!info?.isFile()) throw new TackleError("git", `git worktree add left no .git file in ${root}`);
  }

  /**
   * Unregisters a worktree and deletes its branch, in the main checkout's sandbox: its entry under
   * `.git/worktrees/` is the one whose `gitdir` names the worktree (what the sandboxes wrote there is
   * read only in a sandbox). Not `git worktree remove`, which would judge the directory by what the
   * main checkout's sandbox sees of it.
   */
  async function dropFromRepository(root: string, branch: string): Promise<void> {
    const gitArgs = hardeningArgs()
      .map((arg) => `'${arg}'`)
      .join(" ");
    const script = [
      'for entry in "$GIT_COMMON_DIR"/worktrees/*/; do',
      '  if [ "$(cat -- "$entry/gitdir" 2>/dev/null)" = "$1/.git" ]; then rm -rf -- "${entry%/}"; fi',
      "done",
      `command git ${gitArgs} branch --quiet -D "$2"`,
    ].join("\n");
    const result = await main.ports.exec.runArgv(["bash", "-c", script, "drop-worktree", root, branch], {
      timeoutMs: GIT_TIMEOUT_MS,
      env: gitEnv({ gitDir: commonDir, workTree: main.root }),
    });
    if (result.timedOut) throw new TackleError("git", "deleting the worktree's branch timed out");
    if (result.exitCode !== 0) throw new TackleError("git", `git branch -D ${branch} failed: ${result.stderr.trim().slice(-2000)}`);
  }

  async function remove(name: string): Promise<{ name: string; branch: string }> {
    assertUsable();
    assertName(name);
    if (name === MAIN) throw new TackleError("invalid_input", "the main checkout cannot be removed: its branch is the run's work");
    const entry = find(name);
    if (entry === current) throw new TackleError("invalid_input", `"${name}" is the current worktree; leave it (or enter another) before removing it`);
    extras.delete(name);
    // Its processes end before its files go, so nothing of it writes on.
    await entry.ports.exec.dispose();
    try {
      await dropFromRepository(entry.root, entry.branch);
    } catch (error) {
      throw new TackleError("git", `removed worktree "${name}", but not its branch ${entry.branch}: ${errorMessage(error)}`);
    } finally {
      await removeTree(entry.root);
    }
    return { name, branch: entry.branch };
  }

  async function headOf(entry: Entry): Promise<WorktreeInfo["head"]> {
    try {
      const [[head], branch] = await Promise.all([entry.ports.git.log(1), entry.ports.git.currentBranch()]);
      return head === undefined ? null : { sha: head.sha, subject: head.subject, branch };
    } catch {
      return null;
    }
  }

  const describe = (entry: Entry, head: WorktreeInfo["head"]): WorktreeInfo => ({
    name: entry.name,
    branch: entry.branch,
    root: entry.root,
    current: entry === current,
    head,
  });

  function assertUsable(): void {
    if (disposed) throw new TackleError("aborted", "the run's worktrees are disposed");
  }

  const port: WorktreePort = {
    create,
    async enter(name) {
      assertUsable();
      assertName(name);
      current = find(name);
      return describe(current, null);
    },
    async leave() {
      assertUsable();
      current = main;
      return describe(main, null);
    },
    async list() {
      const entries = [main, ...extras.values()];
      return Promise.all(entries.map(async (entry) => describe(entry, await headOf(entry))));
    },
    remove,
  };

  return {
    ports: forwardingPorts(
      () => current.ports,
      () => [main, ...extras.values()].map((entry) => entry.ports.exec),
    ),
    port,
    branches: () => [...extras.values()].map((entry) => entry.branch),
    async dispose() {
      disposed = true;
      current = main;
      const entries = [...extras.values()];
      extras.clear();
      const quiet = await Promise.all(entries.map((entry) => entry.ports.exec.dispose()));
      for (const entry of entries) await removeTree(entry.root);
      await removeTree(options.dir);
      return quiet.every(Boolean);
    },
  };
}

function assertName(name: string): void {
  if (!NAME.test(name)) {
    throw new TackleError("invalid_input", `"${name}" is not a valid worktree name: use 1 to 40 characters, each a-z, 0-9 or "-"`);
  }
}

function gitEnv(repo: GitRepoLocation): Record<string, string> {
  return { ...gitLocationEnv(repo), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" };
}
