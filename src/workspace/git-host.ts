import { mkdir } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { dropPrivileges, type SandboxIdentity } from "./sandbox-plan.js";

/**
 * Every git command the host runs goes through here. The environment is rebuilt from nothing
 * (no inherited GIT_*, no system or global config, an empty HOME), repository hooks and fsmonitor
 * are switched off on the command line, and a credential, when one is needed, reaches that one
 * command through GIT_CONFIG_* variables: never argv, never a file.
 */

/** Where a command's repository lives, pinned so nothing inside the worktree can redirect it. */
export interface GitRepoLocation {
  gitDir: string;
  /** Defaults to gitDir: pinning it makes a planted `commondir` file meaningless. */
  commonDir?: string;
  workTree?: string;
}

export interface HostGitCommand {
  args: readonly string[];
  cwd?: string;
  repo?: GitRepoLocation;
  /** One-shot credential for http(s) remotes, sent as an `Authorization` header. */
  token?: string;
  /** Transport schemes this command may use (e.g. ["https"]); every other one is refused. */
  protocols?: readonly string[];
  signal?: AbortSignal;
  /** @defaultValue 600_000 */
  timeoutMs?: number;
  /** Exit codes that are not failures. @defaultValue [0] */
  okExitCodes?: readonly number[];
  /** Marks a failure of this command as worth another attempt (network operations). */
  retryable?: boolean;
  /** Written to the command's stdin. @defaultValue none (stdin ignored) */
  input?: string;
}

export interface HostGitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface HostGitBytes {
  stdout: Buffer;
  stderr: string;
  /** -1 when it timed out. */
  exitCode: number;
  timedOut: boolean;
}

export interface HostGit {
  /** Empty directory used as HOME and as the hooks path. */
  readonly gitHome: string;
  run(command: HostGitCommand): Promise<HostGitResult>;
  /**
   * The same command with bytes in and out (packs, `cat-file --batch`): `bytes` is written to its
   * stdin, at most `maxBytes` of stdout are kept (more fails it). Never throws for an exit code.
   */
  runBytes(command: HostGitCommand & { bytes?: Buffer; maxBytes?: number }): Promise<HostGitBytes>;
}

const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Jobs' processes (host git, the sandbox) run at a lower CPU priority than Tackle itself, so a
 * server that also runs jobs keeps answering webhooks promptly while checkouts are being written.
 */
export function niceArgv(argv: readonly string[]): string[] {
  return ["nice", "-n", "10", ...argv];
}

/** Options that make a host git command ignore anything a repository could plant. */
export function hardeningArgs(): string[] {
  return [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "credential.helper=",
    "-c",
    "core.askPass=",
    "-c",
    "core.sshCommand=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "protocol.ext.allow=never",
  ];
}

export function basicAuthHeader(token: string): string {
  return `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
}

/** GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE for a pinned location, on the host or in the sandbox. */
export function gitLocationEnv(repo: GitRepoLocation): Record<string, string> {
  const env: Record<string, string> = { GIT_DIR: repo.gitDir, GIT_COMMON_DIR: repo.commonDir ?? repo.gitDir };
  if (repo.workTree !== undefined) env.GIT_WORK_TREE = repo.workTree;
  return env;
}

/** The environment of a host git command: built from nothing, never inherited. */
export function hostGitEnv(gitHome: string, options: { token?: string; repo?: GitRepoLocation } = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: SYSTEM_PATH,
    HOME: gitHome,
    XDG_CONFIG_HOME: path.join(gitHome, ".config"),
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
  };
  if (options.repo) Object.assign(env, gitLocationEnv(options.repo));
  if (options.token !== undefined) {
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_0 = basicAuthHeader(options.token);
  }
  return env;
}

function protocolArgs(protocols: readonly string[] | undefined): string[] {
  if (!protocols) return [];
  const args = ["-c", "protocol.allow=never"];
  for (const scheme of protocols) args.push("-c", `protocol.${scheme}.allow=always`);
  return args;
}

/** Removes a token (raw or as its Basic header) from text bound for logs and errors. */
export function redactToken(text: string, token: string | undefined): string {
  if (!token) return text;
  const encoded = Buffer.from(`x-access-token:${token}`).toString("base64");
  return text.split(token).join("***").split(encoded).join("***");
}

/** A home that never exists: git run as another user ignores its (absent) files there. */
const NO_HOME = "/nonexistent";

export function createHostGit(options: {
  gitHome: string;
  logger?: Logger;
  /**
   * Runs every command as this user (root drops to it with setpriv, as for sandboxed commands), so
   * the kernel applies that user's permissions; `gitHome` is then neither made nor used.
   * @defaultValue Tackle's own user
   */
  runAs?: SandboxIdentity;
}): HostGit {
  const { logger, runAs } = options;
  const gitHome = runAs === undefined ? options.gitHome : NO_HOME;
  let homeReady: Promise<unknown> | undefined;

  /** One host git command, its output as bytes; exit codes are the caller's to judge. */
  async function spawnGit(command: HostGitCommand, input: string | Buffer | undefined, maxBuffer: number) {
    homeReady ??= runAs === undefined ? mkdir(gitHome, { recursive: true, mode: 0o755 }) : Promise.resolve();
    await homeReady;
    const args = [...hardeningArgs(), ...protocolArgs(command.protocols), ...command.args];
    const envOptions: { token?: string; repo?: GitRepoLocation } = {};
    if (command.token !== undefined) envOptions.token = command.token;
    if (command.repo !== undefined) envOptions.repo = command.repo;
    logger?.debug({ args: command.args, cwd: command.cwd }, "git");
    const gitArgv = ["git", ...args];
    const [file = "nice", ...rest] = niceArgv(runAs === undefined ? gitArgv : dropPrivileges(runAs, gitArgv));
    const result = await execa(file, rest, {
      cwd: command.cwd ?? (runAs === undefined ? gitHome : "/"),
      env: hostGitEnv(gitHome, envOptions),
      extendEnv: false,
      reject: false,
      ...(input !== undefined ? { input } : { stdin: "ignore" as const }),
      timeout: command.timeoutMs ?? 600_000,
      ...(command.signal ? { cancelSignal: command.signal } : {}),
      maxBuffer,
      encoding: "buffer",
      stripFinalNewline: false,
    });
    if (result.isCanceled) throw new TackleError("aborted", `git ${command.args[0] ?? ""} was cancelled`);
    return result;
  }

  async function runBytes(command: HostGitCommand & { bytes?: Buffer; maxBytes?: number }): Promise<HostGitBytes> {
    const result = await spawnGit(command, command.bytes ?? command.input, command.maxBytes ?? 256 * 1024 * 1024);
    return {
      stdout: Buffer.from(result.stdout ?? new Uint8Array()),
      stderr: Buffer.from(result.stderr ?? new Uint8Array()).toString("utf8"),
      exitCode: result.timedOut ? -1 : (result.exitCode ?? -1),
      timedOut: result.timedOut,
    };
  }

  async function run(command: HostGitCommand): Promise<HostGitResult> {
    const result = await spawnGit(command, command.input, 256 * 1024 * 1024);
    const stdout = Buffer.from(result.stdout ?? new Uint8Array()).toString("utf8");
    const stderr = Buffer.from(result.stderr ?? new Uint8Array()).toString("utf8");
    const exitCode = result.exitCode ?? -1;
    if (result.timedOut || !(command.okExitCodes ?? [0]).includes(exitCode)) {
      const reason = result.timedOut ? "timed out" : `exited with ${exitCode}`;
      const detail = redactToken(stderr.trim() || stdout.trim(), command.token).slice(-2000);
      throw new TackleError("git", `git ${command.args.join(" ")} ${reason}: ${detail}`, {
        retryable: command.retryable ?? false,
      });
    }
    return { stdout, stderr, exitCode };
  }

  return { gitHome, run, runBytes };
}

/**
 * The checks that need no git: names git would read as options or revision syntax, and characters
 * `check-ref-format` refuses anyway. The agent's git port and the host share them.
 */
export function assertBranchNameShape(name: string): void {
  if (name.length === 0 || name.startsWith("-") || name.includes("@{") || name.includes("..") || name === "HEAD" || /[\s\\~^:?*[\x00-\x1f\x7f]/.test(name)) {
    throw new TackleError("git", `invalid branch name '${name}'`);
  }
}

/**
 * Validates a branch name with `git check-ref-format --branch` (run outside any repository, so
 * `@{-1}` shorthands cannot expand) and refuses names git would read as options.
 */
export async function validateBranchName(git: HostGit, name: string): Promise<string> {
  assertBranchNameShape(name);
  try {
    const { stdout } = await git.run({ args: ["check-ref-format", "--branch", name] });
    return stdout.trim();
  } catch (error) {
    throw new TackleError("git", `invalid branch name '${name}'`, { cause: error });
  }
}

/** Only `tackle/...` branches, or a branch named explicitly (a PR head being worked on), may be pushed. */
export function isPushAllowed(branch: string, allowedPushBranches: readonly string[] = []): boolean {
  return (branch.startsWith("tackle/") && branch.length > "tackle/".length) || allowedPushBranches.includes(branch);
}

export function assertPushAllowed(branch: string, allowedPushBranches: readonly string[] = []): void {
  if (!isPushAllowed(branch, allowedPushBranches)) {
    throw new TackleError("push_refused", `branch '${branch}' may not be pushed: only tackle/... branches or the pull request head being worked on`);
  }
}

export interface RemoteInfo {
  /** The URL as git should see it, without credentials. */
  url: string;
  /** The transport scheme git will use: "https", "http" or "file". */
  scheme: "https" | "http" | "file";
}

/**
 * Accepts http(s) URLs without embedded credentials and, for tests and local mirrors, absolute
 * paths or file:// URLs. Everything else (ssh, ext::, options in disguise) is refused.
 */
export function parseRemoteUrl(remoteUrl: string): RemoteInfo {
  if (remoteUrl.startsWith("/")) return { url: remoteUrl, scheme: "file" };
  let parsed: URL;
  try {
    parsed = new URL(remoteUrl);
  } catch {
    throw new TackleError("workspace", `remote URL '${remoteUrl}' is not an http(s) URL or an absolute path`);
  }
  if (parsed.protocol === "file:") return { url: remoteUrl, scheme: "file" };
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new TackleError("workspace", `remote URL scheme '${parsed.protocol}' is not allowed; use https`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new TackleError("workspace", "remote URL must not carry credentials; pass the token separately");
  }
  return { url: remoteUrl, scheme: parsed.protocol === "https:" ? "https" : "http" };
}
