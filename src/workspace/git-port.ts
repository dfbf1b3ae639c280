import type { FsPort, GitPort, GitStatusEntry } from "../agent/ports.js";
import { MAX_PUBLISHED_FILE_BYTES } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { lineCount } from "../util/count-lines.js";
import { assertBranchNameShape, gitLocationEnv, hardeningArgs, type GitRepoLocation } from "./git-host.js";
import type { Sandbox } from "./sandbox.js";

/**
 * Git as the agent may use it. Commands run in the job's sandbox, as the sandbox user (so objects
 * and refs they write stay writable by the agent's own shell), with no credential, hooks and
 * fsmonitor off, and config limited to the repository's own (read-only) file.
 */

const TIMEOUT_MS = 120_000;

export interface GitPortOptions {
  sandbox: Sandbox;
  repo: GitRepoLocation & { workTree: string };
  /** The worktree's guarded reader: binary and untracked files are counted by their content. */
  files: Pick<FsPort, "read">;
}

function gitEnv(repo: GitPortOptions["repo"]): Record<string, string> {
  return {
    ...gitLocationEnv(repo),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** Parses `git status --porcelain=v1 -z`. */
export function parseStatus(output: string): GitStatusEntry[] {
  const entries: GitStatusEntry[] = [];
  const parts = output.split("\0");
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] ?? "";
    if (part.length < 4) continue;
    const code = part.slice(0, 2);
    entries.push({ path: part.slice(3), code });
    // Renames and copies carry the original path as the next field.
    if (code.includes("R") || code.includes("C")) i += 1;
  }
  return entries;
}

/**
 * Parses `git diff --numstat -z --no-renames`. A file git calls binary (`-`) has `lines: null`: the
 * caller counts it by content, never as 0.
 */
export function parseNumstat(output: string): Array<{ path: string; lines: number | null }> {
  return output
    .split("\0")
    .filter((record) => record.length > 0)
    .map((record) => {
      const [added = "-", deleted = "-", ...rest] = record.split("\t");
      const lines = added === "-" || deleted === "-" ? null : Number(added) + Number(deleted);
      return { path: rest.join("\t"), lines };
    });
}

/**
 * Lines of a worktree file, read through the guarded reader: what is not a regular file the reader
 * takes (a FIFO, a device, a symlink out, a file over the publish limit) counts 0 here. An
 * estimate for the agent: the host's publish check counts from its own objects.
 */
async function countLines(files: Pick<FsPort, "read">, file: string): Promise<number> {
  const read = await files.read(file, { maxBytes: MAX_PUBLISHED_FILE_BYTES }).catch(() => null);
  return read?.kind === "file" ? lineCount(read.bytes) : 0;
}

/** Largest pack the sandbox may hand the host for one publish. */
export const MAX_PACK_BYTES = 512 * 1024 * 1024;

/**
 * What the host needs from the agent's repository to publish, read inside the sandbox as the sandbox
 * user: the host never runs git on a `.git` the agent can write (a symlink there would resolve on the
 * host, as root; a FIFO would hang it). Only the tip's sha and a pack cross, and the host checks both.
 */
export interface CheckoutReader {
  /**
   * The sha `refs/heads/<branch>` peels to, and a pack of the commits reachable from it and not from
   * `exclude` (full shas), in one sandboxed command. A fixed error, never git's stderr, on failure.
   */
  packBranch(branch: string, exclude: readonly string[], signal?: AbortSignal): Promise<{ sha: string; pack: Buffer }>;
  /** Commits on `branch` not reachable from `base` (a sha); 0 when it cannot tell. */
  countAhead(base: string, branch: string): Promise<number>;
}

export function createCheckoutReader(options: Omit<GitPortOptions, "files">): CheckoutReader {
  const { sandbox, repo } = options;
  // Grafts and replace refs would only make the pack incomplete, which the host refuses anyway.
  const env = { ...gitEnv(repo), GIT_GRAFT_FILE: "/dev/null", GIT_NO_REPLACE_OBJECTS: "1" };
  const gitArgs = hardeningArgs()
    .map((arg) => `'${arg}'`)
    .join(" ");
  /**
   * Runs `script` in the sandbox with `git` meaning the hardened command. Git's ref backend follows a
   * `commondir` file even with GIT_COMMON_DIR set; a clone never has one, so one the agent planted
   * is removed first (in the sandbox, so that is all it can touch).
   */
  const inBox = (script: string, args: readonly string[], options: { signal?: AbortSignal | undefined; maxOutputBytes: number }) =>
    sandbox.runArgvBytes(["bash", "-c", `rm -f -- "$GIT_DIR/commondir"; git() { command git ${gitArgs} "$@"; }; ${script}`, "reader", ...args], {
      timeoutMs: TIMEOUT_MS,
      env,
      maxOutputBytes: options.maxOutputBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const text = async (script: string, args: readonly string[], signal?: AbortSignal): Promise<string | null> => {
    const result = await inBox(script, args, { signal, maxOutputBytes: 64 * 1024 }).catch(() => null);
    return result?.exitCode === 0 ? result.stdout.toString("utf8").trim() : null;
  };
  return {
    async packBranch(branch, exclude, signal) {
      assertBranchNameShape(branch);
      if (!exclude.every((sha) => /^[0-9a-f]{40}$/.test(sha))) throw new TackleError("push_refused", "invalid commit id to exclude from the pack");
      // The tip's sha on the first line, then the pack.
      const script = [
        'tip=$(git rev-parse --verify --quiet "refs/heads/$1^{commit}") || exit 3',
        'shift; printf "%s\\n" "$tip"',
        'printf "%s\\n" "$tip" --not "$@" | git pack-objects --stdout --revs --quiet',
      ].join("\n");
      const result = await inBox(script, [branch, ...exclude], { signal, maxOutputBytes: MAX_PACK_BYTES + 41 }).catch((error: unknown) => {
        if (error instanceof TackleError && error.code === "aborted") throw error;
        throw new TackleError("push_refused", `the commits to publish could not be packed (over ${MAX_PACK_BYTES} bytes, or the sandbox failed)`);
      });
      if (result.timedOut) throw new TackleError("push_refused", "packing the commits to publish timed out");
      if (result.exitCode === 3) throw new TackleError("push_refused", `the branch ${branch} does not point at a commit in the checkout`);
      const sha = result.stdout.subarray(0, 40).toString("latin1");
      if (result.exitCode !== 0 || !/^[0-9a-f]{40}$/.test(sha) || result.stdout[40] !== 10) {
        throw new TackleError("push_refused", `the commits to publish cannot be read from the checkout (exit ${result.exitCode})`);
      }
      return { sha, pack: result.stdout.subarray(41) };
    },
    async countAhead(base, branch) {
      assertBranchNameShape(branch);
      if (!/^[0-9a-f]{40}$/.test(base)) return 0;
      const count = Number(await text('git rev-list --count "$1..refs/heads/$2"', [base, branch]));
      return Number.isInteger(count) && count >= 0 ? count : 0;
    },
  };
}

export function createGitPort(options: GitPortOptions): GitPort {
  const { sandbox, repo } = options;
  const env = gitEnv(repo);

  async function git(args: readonly string[], okExitCodes: readonly number[] = [0]): Promise<{ stdout: string; exitCode: number }> {
    const result = await sandbox.runArgv(["git", ...hardeningArgs(), ...args], { timeoutMs: TIMEOUT_MS, env });
    if (result.timedOut) throw new TackleError("git", `git ${args[0] ?? ""} timed out`);
    if (result.exitCode === null || !okExitCodes.includes(result.exitCode)) {
      throw new TackleError("git", `git ${args.join(" ")} failed: ${(result.stderr.trim() || result.stdout.trim()).slice(-2000)}`);
    }
    return { stdout: result.stdout, exitCode: result.exitCode };
  }

  /** A base given as a branch name: the local branch, else origin's, else whatever git makes of it. */
  async function resolveBase(base: string): Promise<string> {
    if (base.startsWith("-")) throw new TackleError("git", `invalid base '${base}'`);
    for (const candidate of [`refs/heads/${base}`, `refs/remotes/origin/${base}`, base]) {
      const { stdout, exitCode } = await git(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`], [0, 1, 128]);
      if (exitCode === 0) return stdout.trim();
    }
    throw new TackleError("git", `unknown base '${base}'`);
  }

  return {
    async currentBranch() {
      const { stdout, exitCode } = await git(["symbolic-ref", "--quiet", "--short", "HEAD"], [0, 1]);
      return exitCode === 0 ? stdout.trim() : "HEAD";
    },

    async status() {
      const { stdout } = await git(["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
      return parseStatus(stdout);
    },

    async diff({ staged, base }) {
      const args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"];
      if (staged) args.push("--cached");
      if (base !== undefined) args.push("--merge-base", await resolveBase(base));
      return (await git(args)).stdout;
    },

    async log(count) {
      const n = Math.max(1, Math.min(Math.floor(count), 1000));
      const { stdout, exitCode } = await git(["log", `-n${n}`, "--format=%H%x1f%s%x1f%an%x1f%aI%x1e"], [0, 128]);
      if (exitCode !== 0) return [];
      return stdout
        .split("\x1e")
        .map((record) => record.trim())
        .filter(Boolean)
        .map((record) => {
          const [sha = "", subject = "", author = "", date = ""] = record.split("\x1f");
          return { sha, subject, author, date };
        });
    },

    async commit(message, files) {
      if (message.trim() === "") throw new TackleError("git", "empty commit message");
      if (files && files.length > 0) {
        for (const file of files) if (file.startsWith("-")) throw new TackleError("git", `invalid path '${file}'`);
        await git(["add", "-A", "--", ...files]);
      } else {
        await git(["add", "-A"]);
      }
      const { exitCode } = await git(["diff", "--cached", "--quiet"], [0, 1]);
      if (exitCode === 0) return null;
      await git(["commit", "--no-verify", "--no-gpg-sign", "--quiet", "-m", message]);
      return (await git(["rev-parse", "HEAD"])).stdout.trim();
    },

    async listBranches() {
      const { stdout } = await git(["for-each-ref", "--format=%(refname:short)", "refs/heads"]);
      return stdout
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
    },

    async createBranch(name) {
      assertBranchNameShape(name);
      await git(["check-ref-format", "--branch", name]);
      await git(["branch", name]);
    },

    async switchBranch(name) {
      assertBranchNameShape(name);
      await git(["switch", name]);
    },

    async diffStat(base) {
      const mergeBase = await resolveBase(base);
      const { stdout } = await git(["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--merge-base", mergeBase]);
      const tracked = parseNumstat(stdout);
      const untracked = (await git(["ls-files", "--others", "--exclude-standard", "-z"])).stdout.split("\0").filter(Boolean);
      let lines = 0;
      // Binary files count by the lines of what is in the working tree (the host's check counts both sides).
      for (const entry of tracked) lines += entry.lines ?? (await countLines(options.files, entry.path));
      for (const file of untracked) lines += await countLines(options.files, file);
      return { files: [...new Set([...tracked.map((entry) => entry.path), ...untracked])], lines };
    },
  };
}
