import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { rgPath } from "@vscode/ripgrep";
import type { SearchPort } from "../agent/ports.js";
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
}

/**
 * ripgrep over one worktree, run on the host (it only reads). No config file (`--no-config`, and
 * an environment without RIPGREP_CONFIG_PATH), no symlink following, output capped. Paths in
 * `args` are the caller's business: tools resolve them through the FsPort first.
 */
export function createSearch(root: string, searchOptions: SearchOptions = {}): SearchPort {
  const runAs = searchOptions.runAs ?? null;
  return {
    ripgrep(args, options) {
      if (followsSymlinks(args)) {
        return Promise.reject(new TackleError("path_outside_worktree", "ripgrep may not follow symlinks (-L/--follow) here"));
      }
      const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
      return new Promise((resolve, reject) => {
        const child =
          runAs === null
            ? spawn(rgPath, ["--no-config", ...args], {
                cwd: root,
                env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
                stdio: ["ignore", "pipe", "pipe"],
                ...(options.signal ? { signal: options.signal } : {}),
              })
            : spawnHelper(dropPrivileges(runAs, [rgPath, "--no-config", ...args]), { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
        if (runAs !== null && options.signal) {
          const stop = (): void => void child.kill("SIGKILL");
          if (options.signal.aborted) stop();
          else options.signal.addEventListener("abort", stop, { once: true });
          child.once("close", () => options.signal?.removeEventListener("abort", stop));
        }
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        let stderr = "";
        const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
        child.stdout?.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = maxOutputBytes - kept;
          if (chunk.length > room) {
            // Cut at the last whole line that fits, then stop ripgrep: the rest is not wanted.
            const part = chunk.subarray(0, room);
            const cut = part.lastIndexOf(10);
            chunks.push(cut >= 0 ? part.subarray(0, cut + 1) : part);
            truncated = true;
            child.kill("SIGTERM");
            return;
          }
          chunks.push(chunk);
          kept += chunk.length;
        });
        child.stderr?.on("data", (chunk: Buffer) => {
          stderr = (stderr + chunk.toString("utf8")).slice(-4000);
        });
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
          const stdout = Buffer.concat(chunks).toString("utf8");
          if (truncated) return resolve({ stdout, exitCode: 0, truncated: true });
          if (code === 0 || code === 1) return resolve({ stdout, exitCode: code, truncated: false });
          // 2 with output: some files could not be read (permissions); the matches still count.
          if (code === 2 && stdout.length > 0) return resolve({ stdout, exitCode: 2, truncated: false });
          reject(new TackleError("workspace", `ripgrep failed (exit ${code ?? "signal"}): ${stderr.trim()}`));
        });
      });
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
