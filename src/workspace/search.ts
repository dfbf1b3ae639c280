import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { rgPath } from "@vscode/ripgrep";
import type { ExecPort, SearchPort } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";
import { dropPrivileges, spawnHelper } from "./launch-privileged.js";
import type { SandboxIdentity } from "./sandbox-plan.js";

const DEFAULT_MAX_OUTPUT = 1_000_000;
const TIMEOUT_MS = 120_000;

/** Options whose next argument is a value (a pattern may well look like `-L...`), not a flag. */
const TAKES_VALUE = new Set(["-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-C", "--context"]);

/** `-L`/`--follow` would let a planted symlink walk the search out of the worktree. */
function followsSymlinks(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? "";
    if (TAKES_VALUE.has(arg)) {
      i += 1;
      continue;
    }
    if (arg === "--") return false;
    if (arg === "--follow") return true;
    if (/^-[A-Za-z]+$/.test(arg) && arg.includes("L")) return true;
  }
  return false;
}

export interface SearchOptions {
  /**
   * Who ripgrep runs as, dropped from root: the commands' identity where the job's pause cannot hold
   * every process of the job (TACKLE_SANDBOX=off as root, where one that detached itself is not
   * paused). ripgrep follows no link it finds, but it walks by path, so a directory swapped for a
   * symlink after it was listed would be entered; as that identity it then reads only what the
   * commands could read anyway. @defaultValue Tackle's own user
   */
  runAs?: SandboxIdentity | null;
  /**
   * The job's sandbox, where ripgrep then runs as one of the job's processes (bubblewrap): with the
   * commands' view, identity and limits. ripgrep follows no link while it walks, but it opens every
   * ignore file it meets by path (`.gitignore`, `.ignore`, `.rgignore`, a `.git` file's `info/exclude`),
   * so a symlink there would lead a host ripgrep to a root-only file (printed back line by line in
   * its glob errors), a FIFO or `/dev/zero`. In the sandbox it leads where the commands could go.
   * `ripgrep` must then be bound into the sandbox at the same path ({@link ripgrepBinary}).
   * @defaultValue none: ripgrep runs on the host (as `runAs`)
   */
  sandbox?: Pick<ExecPort, "start"> | null;
}

/** The ripgrep binary searches run, for a sandbox to bind read-only at the same path. */
export const ripgrepBinary: string = rgPath;

type SearchResult = Awaited<ReturnType<SearchPort["ripgrep"]>>;

/**
 * ripgrep over one worktree. No config file (`--no-config`, and an environment without
 * RIPGREP_CONFIG_PATH), no symlink following, output capped. In the job's sandbox when one is given,
 * else on the host. Paths in `args` are the caller's business: tools resolve them through the
 * FsPort first.
 */
export function createSearch(root: string, searchOptions: SearchOptions = {}): SearchPort {
  const runAs = searchOptions.runAs ?? null;
  const sandbox = searchOptions.sandbox ?? null;
  return {
    onHost: sandbox === null,
    ripgrep(args, options) {
      if (followsSymlinks(args)) {
        return Promise.reject(new TackleError("path_outside_worktree", "ripgrep may not follow symlinks (-L/--follow) here"));
      }
      const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
      const argv = [rgPath, "--no-config", ...args];
      if (sandbox?.start) return ripgrepInSandbox(sandbox.start.bind(sandbox), argv, options.signal, maxOutputBytes);
      return new Promise((resolve, reject) => {
        const child =
          runAs === null
            ? spawn(argv[0] as string, argv.slice(1), {
                cwd: root,
                env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
                stdio: ["ignore", "pipe", "pipe"],
                ...(options.signal ? { signal: options.signal } : {}),
              })
            : spawnHelper(dropPrivileges(runAs, argv), { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
        if (runAs !== null && options.signal) {
          const stop = (): void => void child.kill("SIGKILL");
          if (options.signal.aborted) stop();
          else options.signal.addEventListener("abort", stop, { once: true });
          child.once("close", () => options.signal?.removeEventListener("abort", stop));
        }
        const output = collectOutput(maxOutputBytes, () => child.kill("SIGTERM"));
        const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
        child.stdout?.on("data", output.stdout);
        child.stderr?.on("data", output.stderr);
        child.once("error", (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          if (error.name === "AbortError") reject(new TackleError("aborted", "search cancelled"));
          // ENOENT also means a missing cwd: only a missing binary gets the answer that ripgrep is not installed.
          else if (error.code === "ENOENT" && !existsSync(rgPath)) reject(ripgrepMissing());
          else reject(new TackleError("workspace", `cannot run ripgrep: ${error.message}`));
        });
        child.once("close", (code) => {
          clearTimeout(timer);
          if (options.signal?.aborted) return reject(new TackleError("aborted", "search cancelled"));
          try {
            resolve(output.result(code));
          } catch (error) {
            reject(error);
          }
        });
      });
    },
  };
}

/** ripgrep as a process of the job's sandbox: its view, its identity, its limits. */
async function ripgrepInSandbox(
  start: NonNullable<ExecPort["start"]>,
  argv: readonly string[],
  signal: AbortSignal | undefined,
  maxOutputBytes: number,
): Promise<SearchResult> {
  if (signal?.aborted) throw new TackleError("aborted", "search cancelled");
  if (!existsSync(rgPath)) throw ripgrepMissing();
  let stop = (): void => undefined;
  const output = collectOutput(maxOutputBytes, () => stop());
  const started = await start(argv, { separateStderr: true, onStdout: output.stdout, onStderr: output.stderr });
  stop = () => void started.stop();
  const timer = setTimeout(stop, TIMEOUT_MS);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const { exitCode } = await started.exited;
    if (signal?.aborted) throw new TackleError("aborted", "search cancelled");
    return output.result(exitCode);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", stop);
  }
}

/** ripgrep's output kept up to `maxOutputBytes` (cut at a whole line, then `stop`), and its stderr's tail. */
function collectOutput(maxOutputBytes: number, stop: () => void) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  let stderr = "";
  return {
    stdout(chunk: Buffer): void {
      if (truncated) return;
      const room = maxOutputBytes - kept;
      if (chunk.length > room) {
        // Cut at the last whole line that fits, then stop ripgrep: the rest is not wanted.
        const part = chunk.subarray(0, room);
        const cut = part.lastIndexOf(10);
        chunks.push(cut >= 0 ? part.subarray(0, cut + 1) : part);
        truncated = true;
        stop();
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    },
    stderr(chunk: Buffer): void {
      stderr = (stderr + chunk.toString("utf8")).slice(-4000);
    },
    /** What ripgrep's exit `code` means: a result, or a thrown error carrying its stderr. */
    result(code: number | null): SearchResult {
      const stdout = Buffer.concat(chunks).toString("utf8");
      if (truncated) return { stdout, exitCode: 0, truncated: true };
      if (code === 0 || code === 1) return { stdout, exitCode: code, truncated: false };
      // 2 with output: some files could not be read (permissions); the matches still count.
      if (code === 2 && stdout.length > 0) return { stdout, exitCode: 2, truncated: false };
      throw new TackleError("workspace", `ripgrep failed (exit ${code ?? "signal"}): ${stderr.trim()}`);
    },
  };
}

/** What the model reads when this machine has no ripgrep (an Action runner without it): what to do instead. */
function ripgrepMissing(): TackleError {
  return new TackleError(
    "workspace",
    `ripgrep is not installed on this machine (no ${rgPath}), so Grep and Glob cannot search here; use Bash instead (grep -rn, find, git ls-files, git grep).`,
  );
}
