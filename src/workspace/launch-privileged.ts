import { spawn, spawnSync, type ChildProcess, type StdioOptions } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { SandboxIdentity } from "./sandbox-plan.js";

/*
 * The one way Tackle starts a process with more rights than the agent's commands: setpriv, bubblewrap,
 * unshare, nsenter, slirp4netns, ip, sudo (and nice, env and sh in front of or between them). As root,
 * each of them runs with uid 0 until it drops, and the dynamic loader, the shell and libc read their
 * environment first (LD_PRELOAD, GCONV_PATH, BASH_ENV…) and the process's PATH decides which program
 * runs at all. So a helper is named by an absolute path found once in system directories, never
 * through the process's PATH or working directory, and is started with a fixed environment; a
 * command's own environment is set by env(1) as the last step before the command, after any drop
 * (`withEnvironment`). Only this file spawns them (test/unit/workspace/launch-privileged.test.ts).
 */

/** Where helpers are looked up, and the PATH they run with: system directories only. */
export const TRUSTED_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

/** The whole environment of every helper. */
const HELPER_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: TRUSTED_PATH });

export const HELPERS = ["setpriv", "bwrap", "unshare", "nsenter", "slirp4netns", "ip", "sudo", "nice", "env", "sh", "bash"] as const;
export type HelperName = (typeof HELPERS)[number];

declare const helperArgvBrand: unique symbol;
/**
 * An argv whose program is a helper found in {@link TRUSTED_PATH}, by absolute path. Only this module
 * makes one, and only these spawn functions take one, so a privileged start cannot skip the lookup.
 */
export type HelperArgv = readonly string[] & { readonly [helperArgvBrand]: true };

const found = new Map<HelperName, string>();

/**
 * The helper's absolute path in {@link TRUSTED_PATH}, or null when it is not installed there. A helper
 * found is remembered; one missing is looked for again (the Action may install bubblewrap meanwhile).
 */
export function helperPath(name: HelperName): string | null {
  const known = found.get(name);
  if (known !== undefined) return known;
  const file = lookUp(name);
  if (file !== null) found.set(name, file);
  return file;
}

function lookUp(name: string): string | null {
  for (const dir of TRUSTED_PATH.split(":")) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export function hasHelper(name: HelperName): boolean {
  return helperPath(name) !== null;
}

/** `name` by its absolute path, then `args`. Throws when the helper is not installed. */
export function helperArgv(name: HelperName, args: readonly string[]): HelperArgv {
  const file = helperPath(name);
  if (file === null) throw new TackleError("sandbox_unavailable", `${name} is not installed (looked in ${TRUSTED_PATH})`);
  return [file, ...args] as readonly string[] as HelperArgv;
}

/** The same helper command at a lower CPU priority, so jobs do not starve the host's own work. */
export function niced(argv: HelperArgv): HelperArgv {
  return helperArgv("nice", ["-n", "10", ...argv]);
}

/**
 * Root's way down to `identity` before `argv` runs: real and effective ids, no supplementary groups,
 * no capabilities in any set, and no way back through a setuid binary. setpriv itself starts with
 * the helpers' fixed environment; what `argv` needs comes after it (see {@link withEnvironment}).
 */
export function dropPrivileges(identity: SandboxIdentity, argv: readonly string[]): HelperArgv {
  // "Never uid 0": a drop to root's uid or group would drop nothing.
  if (identity.uid === 0 || identity.gid === 0) throw new Error(`refusing to drop privileges to uid ${identity.uid}, gid ${identity.gid}`);
  return helperArgv("setpriv", [
    "--reuid",
    String(identity.uid),
    "--regid",
    String(identity.gid),
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--no-new-privs",
    "--",
    ...argv,
  ]);
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `argv` with exactly `env`, set by env(1) right before it: placed after a drop, the variables reach
 * only the dropped command, never the helper before it. Names are checked so none reads as an option.
 */
export function withEnvironment(env: Readonly<Record<string, string>>, argv: readonly string[]): HelperArgv {
  const assignments = Object.entries(env).map(([key, value]) => {
    if (!ENV_NAME.test(key)) throw new TackleError("workspace", `invalid environment variable name '${key}'`);
    return `${key}=${value}`;
  });
  // The command is named by a path (no "="), so env cannot take it for one more assignment.
  const [command = "", ...rest] = argv;
  if (command.includes("=")) throw new TackleError("workspace", `a command named '${command}' cannot follow env's assignments`);
  return helperArgv("env", ["-i", ...assignments, command, ...rest]);
}

export interface HelperSpawnOptions {
  stdio: StdioOptions;
  detached?: boolean;
  /** @defaultValue "/" (nothing of a checkout is looked at before the command runs) */
  cwd?: string;
}

/** Starts a helper with the fixed environment. */
export function spawnHelper(argv: HelperArgv, options: HelperSpawnOptions): ChildProcess {
  const [file = "", ...args] = argv;
  return spawn(file, args, { cwd: options.cwd ?? "/", env: { ...HELPER_ENV }, stdio: options.stdio, detached: options.detached ?? false });
}

/** Runs a short helper command to its end (a probe), with the fixed environment. */
export function runHelperSync(argv: HelperArgv, options: { timeoutMs: number }): { status: number | null; stdout: string; stderr: string; error?: Error } {
  const [file = "", ...args] = argv;
  const result = spawnSync(file, args, { cwd: "/", env: { ...HELPER_ENV }, stdio: ["ignore", "pipe", "pipe"], timeout: options.timeoutMs, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", ...(result.error ? { error: result.error } : {}) };
}

/** Runs a helper command to its end, stdin closed, with the fixed environment. */
export function runHelper(argv: HelperArgv, options: { timeoutMs: number }): Promise<{ exitCode: number | null; output: string; error?: Error }> {
  return new Promise((resolve) => {
    const child = spawnHelper(argv, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString("utf8")).slice(-8192);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ exitCode: null, output, error });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, output });
    });
  });
}
