import { spawn, spawnSync, type ChildProcess, type StdioOptions } from "node:child_process";
import { chmod, chown, lstat, mkdir, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import type { ExecOptions, ExecPort, ExecResult } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { createOutputCollector } from "./output-collector.js";
import { attachNetwork, readChildPid } from "./sandbox-network.js";
import {
  planBwrap,
  probeHostLayout,
  SANDBOX_HOME,
  SANDBOX_PATH,
  type Bind,
  type Launcher,
  type SandboxIdentity,
} from "./sandbox-plan.js";

export type { SandboxIdentity } from "./sandbox-plan.js";

/**
 * `bwrap`: every command runs in bubblewrap (see README "Security model").
 * `off`: plain `bash -c` with the same cleared environment and rlimits, for hosts without
 * bubblewrap when the operator set TACKLE_SANDBOX=off. Nothing is isolated in that mode.
 */
export type SandboxMode = "bwrap" | "off";

export interface SandboxLimits {
  /** RLIMIT_NPROC: processes and threads of the sandbox user. @defaultValue 1024 */
  processes?: number;
  /**
   * RLIMIT_DATA per process, in bytes. Data rather than address space: V8 and WebAssembly reserve
   * large PROT_NONE regions that RLIMIT_AS counts and RLIMIT_DATA does not. @defaultValue 4 GiB
   */
  memoryBytes?: number;
  /** RLIMIT_FSIZE: the largest file a command may write. @defaultValue 2 GiB */
  fileBytes?: number;
  /** Size of the private /tmp and /var/tmp tmpfs. @defaultValue 1 GiB */
  tmpBytes?: number;
  /** Output past which a command is killed rather than counted. @defaultValue max(256 MiB, 64 × maxOutputBytes) */
  killAfterOutputBytes?: number;
}

export interface SandboxOptions {
  /** The worktree, bound read-write at the same absolute path and used as the working directory. */
  root: string;
  mode: SandboxMode;
  /** Host paths visible read-only at the same path: the repository mirror, toolchains. */
  extraReadOnly?: readonly string[];
  /** Paths inside the writable binds re-bound read-only (and so also unrenameable): `.git/config`, `.git/hooks`. */
  readOnlyInside?: readonly string[];
  /** More read-write binds after the root, e.g. `<root>/.git` (a mount point cannot be renamed away). */
  extraWritable?: readonly string[];
  /** Persistent HOME, bound at /home/tackle; a fresh tmpfs per command when absent. */
  homeDir?: string;
  /**
   * Who commands run as when Tackle itself runs as root; `null` keeps root's uid (mapped to 65534
   * inside, without capabilities) for a local run on a root-owned repository.
   * Ignored when Tackle is not root (the sandbox runs as Tackle's own uid).
   * @defaultValue { uid: 65534, gid: 65534 }
   */
  identity?: SandboxIdentity | null;
  /** Environment for every command (never secrets), e.g. the git author. */
  env?: Readonly<Record<string, string>>;
  limits?: SandboxLimits;
  logger?: Logger;
}

export interface ArgvResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
}

export interface Sandbox extends ExecPort {
  readonly mode: SandboxMode;
  /** Runs an argv (no shell) in the same box, stdout and stderr apart; the git port uses it. */
  runArgv(
    argv: readonly string[],
    options: { timeoutMs: number; signal?: AbortSignal; maxOutputBytes?: number; env?: Record<string, string> },
  ): Promise<ArgvResult>;
}

const DEFAULT_IDENTITY: SandboxIdentity = { uid: 65534, gid: 65534 };
const DEFAULT_MAX_OUTPUT = 1_000_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The uid and gid files in a checkout must belong to so the sandbox can write them; null: leave as is. */
export function sandboxOwner(mode: SandboxMode, identity?: SandboxIdentity | null): SandboxIdentity | null {
  if (mode !== "bwrap" || !isRoot()) return null;
  return identity === undefined ? DEFAULT_IDENTITY : identity;
}

let stageDirPromise: Promise<string> | undefined;

/** An empty, root-owned, world-traversable directory the private mount namespaces mount over. */
function stageDir(): Promise<string> {
  stageDirPromise ??= (async () => {
    const fixed = "/tmp/.tackle-stage";
    await mkdir(fixed, { mode: 0o755 }).catch(() => undefined);
    const info = await lstat(fixed).catch(() => null);
    if (info?.isDirectory() && info.uid === 0 && (info.mode & 0o022) === 0) return fixed;
    // Someone else owns the fixed name: use a private one instead.
    const own = await mkdtemp(path.join(tmpdir(), "tackle-stage-"));
    await chmod(own, 0o755);
    return own;
  })();
  return stageDirPromise;
}

async function bindOf(p: string, dest = p): Promise<Bind | null> {
  const real = await realpath(p).catch(() => null);
  if (!real) return null;
  const info = await stat(real);
  return { src: real, dest, kind: info.isDirectory() ? "dir" : "file" };
}

async function bindsOf(paths: readonly string[] | undefined): Promise<Bind[]> {
  const binds: Bind[] = [];
  for (const p of paths ?? []) {
    const bind = await bindOf(p);
    if (bind) binds.push(bind);
  }
  return binds;
}

function limitPrefix(limits: SandboxLimits, mergeStderr: boolean): string {
  const processes = limits.processes ?? 1024;
  const dataKb = Math.floor((limits.memoryBytes ?? 4 * 1024 ** 3) / 1024);
  const fileKb = Math.floor((limits.fileBytes ?? 2 * 1024 ** 3) / 1024);
  // Each limit only lowers what is already there; a lower hard limit the host set stays in force.
  return [
    `ulimit -u ${processes} 2>/dev/null`,
    `ulimit -d ${dataKb} 2>/dev/null`,
    `ulimit -f ${fileKb} 2>/dev/null`,
    "ulimit -c 0 2>/dev/null",
    mergeStderr ? "exec 2>&1" : ":",
    'exec "$@"',
  ].join("; ");
}

function checkEnv(env: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? {})) {
    if (!ENV_NAME.test(key)) throw new TackleError("workspace", `invalid environment variable name '${key}'`);
    out[key] = value;
  }
  return out;
}

interface Launched {
  exitCode: number | null;
  timedOut: boolean;
  killedForOutput: boolean;
}

interface LaunchSpec {
  innerArgv: string[];
  env: Record<string, string>;
  network: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes: number;
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Total bytes seen so far, to stop a flood. */
  totalBytes(): number;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

export function createSandboxExec(options: SandboxOptions): Sandbox {
  const limits = options.limits ?? {};
  const logger = options.logger;
  const baseEnv = checkEnv(options.env);
  let prepared: Promise<{ launcher: Launcher; writable: Bind[]; readOnly: Bind[]; readOnlyInside: Bind[] }> | undefined;

  function prepare() {
    prepared ??= (async () => {
      let launcher: Launcher = { kind: "unprivileged" };
      if (isRoot()) {
        const identity = options.identity === undefined ? DEFAULT_IDENTITY : options.identity;
        launcher = identity === null ? { kind: "root-keep" } : { kind: "root-drop", identity, stageDir: await stageDir() };
      }
      const root = await bindOf(options.root);
      if (!root || root.kind !== "dir") throw new TackleError("workspace", `sandbox root ${options.root} is not a directory`);
      return {
        launcher,
        writable: [root, ...(await bindsOf(options.extraWritable))],
        readOnly: await bindsOf(options.extraReadOnly),
        readOnlyInside: await bindsOf(options.readOnlyInside),
      };
    })();
    return prepared;
  }

  function innerEnv(extra: Record<string, string> | undefined): Record<string, string> {
    const home = options.mode === "bwrap" ? SANDBOX_HOME : (options.homeDir ?? tmpdir());
    return {
      PATH: SANDBOX_PATH,
      HOME: home,
      USER: "tackle",
      LOGNAME: "tackle",
      LANG: "C.UTF-8",
      TERM: "dumb",
      TMPDIR: "/tmp",
      PAGER: "cat",
      GIT_PAGER: "cat",
      GIT_TERMINAL_PROMPT: "0",
      ...baseEnv,
      ...checkEnv(extra),
    };
  }

  async function spawnBox(spec: LaunchSpec): Promise<{ child: ChildProcess; extra: Array<Readable | Writable | null>; plan?: { infoFd?: number; blockFd?: number } }> {
    if (options.mode === "off") {
      const child = spawn(spec.innerArgv[0] ?? "bash", spec.innerArgv.slice(1), {
        cwd: options.root,
        env: spec.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      return { child, extra: [] };
    }
    const setup = await prepare();
    const input = {
      launcher: setup.launcher,
      layout: await probeHostLayout(),
      root: setup.writable[0]?.dest ?? options.root,
      writable: setup.writable,
      readOnly: setup.readOnly,
      readOnlyInside: setup.readOnlyInside,
      env: spec.env,
      network: spec.network,
      tmpBytes: limits.tmpBytes ?? 1024 ** 3,
      innerArgv: spec.innerArgv,
    };
    const plan = planBwrap(options.homeDir === undefined ? input : { ...input, homeDir: options.homeDir });
    const stdio: StdioOptions = ["ignore", "pipe", "pipe", ...plan.fds.map(() => "pipe" as const)];
    // bubblewrap's own environment shows through /proc/1/environ inside: give it nothing.
    const child = spawn(plan.command, plan.args, { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, detached: true, stdio });
    const extra = plan.fds.map((_, index) => child.stdio[index + 3] as Readable | Writable | null);
    plan.fds.forEach((fd, index) => {
      if (fd.kind === "data") (extra[index] as Writable | null)?.end(fd.content);
    });
    const fdPlan: { infoFd?: number; blockFd?: number } = {};
    if (plan.infoFd !== undefined) fdPlan.infoFd = plan.infoFd;
    if (plan.blockFd !== undefined) fdPlan.blockFd = plan.blockFd;
    return { child, extra, plan: fdPlan };
  }

  async function launch(spec: LaunchSpec): Promise<Launched> {
    if (spec.signal?.aborted) throw new TackleError("aborted", "command cancelled before it started");
    if (spec.network && options.mode === "bwrap" && !isRoot()) {
      throw new TackleError("sandbox_unavailable", "network for sandboxed setup steps needs Tackle to run as root (slirp4netns)");
    }
    const { child, extra, plan } = await spawnBox(spec);
    const killAfter = limits.killAfterOutputBytes ?? Math.max(256 * 1024 ** 2, 64 * spec.maxOutputBytes);
    let timedOut = false;
    let killedForOutput = false;
    let aborted = false;
    let slirp: ChildProcess | undefined;
    const stopAll = (): void => {
      killGroup(child);
      slirp?.kill("SIGKILL");
    };
    const onData = (sink: (chunk: Buffer) => void) => (chunk: Buffer) => {
      sink(chunk);
      if (!killedForOutput && spec.totalBytes() > killAfter) {
        killedForOutput = true;
        stopAll();
      }
    };
    child.stdout?.on("data", onData(spec.onStdout));
    child.stderr?.on("data", onData(spec.onStderr));
    const timer = setTimeout(() => {
      timedOut = true;
      stopAll();
    }, spec.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      stopAll();
    };
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    const networkAbort = new AbortController();

    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once("error", (error) => reject(new TackleError("sandbox_unavailable", `cannot start ${options.mode === "off" ? "bash" : "bubblewrap"}: ${error.message}`)));
      child.once("exit", (code, signal) => {
        networkAbort.abort();
        // Stragglers (background jobs in "off" mode) die with the group; in bubblewrap the pid
        // namespace is already gone with its init.
        killGroup(child);
        slirp?.kill("SIGKILL");
        const grace = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve({ code, signal });
        }, 1000);
        child.once("close", () => {
          clearTimeout(grace);
          resolve({ code, signal });
        });
      });
    });

    try {
      if (plan?.infoFd !== undefined && plan.blockFd !== undefined) {
        const info = extra[plan.infoFd - 3] as Readable;
        const block = extra[plan.blockFd - 3] as Writable;
        const both = AbortSignal.any([networkAbort.signal, ...(spec.signal ? [spec.signal] : [])]);
        try {
          const pid = await readChildPid(info, both);
          slirp = await attachNetwork(pid, both);
          block.end("1");
        } catch (error) {
          stopAll();
          await closed.catch(() => undefined);
          if (timedOut) return { exitCode: null, timedOut, killedForOutput };
          throw error;
        }
      }
      const { code, signal } = await closed;
      if (aborted) throw new TackleError("aborted", "command cancelled");
      const exitCode = timedOut || killedForOutput || signal !== null ? null : code;
      return { exitCode, timedOut, killedForOutput };
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      slirp?.kill("SIGKILL");
    }
  }

  const sandbox: Sandbox = {
    sandboxed: options.mode === "bwrap",
    mode: options.mode,

    async run(command: string, execOptions: ExecOptions): Promise<ExecResult> {
      const started = Date.now();
      const maxOutputBytes = execOptions.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
      const output = createOutputCollector(maxOutputBytes);
      const spec: LaunchSpec = {
        innerArgv: ["bash", "-c", limitPrefix(limits, true), "tackle", "bash", "-c", command],
        env: innerEnv(execOptions.env),
        network: execOptions.network ?? false,
        timeoutMs: execOptions.timeoutMs,
        maxOutputBytes,
        onStdout: (chunk) => output.push(chunk),
        onStderr: (chunk) => output.push(chunk),
        totalBytes: () => output.totalBytes,
      };
      if (execOptions.signal) spec.signal = execOptions.signal;
      const result = await launch(spec);
      logger?.debug({ exitCode: result.exitCode, timedOut: result.timedOut, bytes: output.totalBytes }, "sandbox command finished");
      let text = output.text();
      if (result.killedForOutput) text += `\n[killed: more than ${spec.totalBytes()} bytes of output]\n`;
      if (result.timedOut) text += `\n[killed: timed out after ${execOptions.timeoutMs} ms]\n`;
      return {
        output: text,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        droppedBytes: output.droppedBytes,
        durationMs: Date.now() - started,
      };
    },

    async runArgv(argv, argvOptions): Promise<ArgvResult> {
      const maxOutputBytes = argvOptions.maxOutputBytes ?? 64 * 1024 * 1024;
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let stdoutBytes = 0;
      let total = 0;
      const spec: LaunchSpec = {
        innerArgv: ["bash", "-c", limitPrefix(limits, false), "tackle", ...argv],
        env: innerEnv(argvOptions.env),
        network: false,
        timeoutMs: argvOptions.timeoutMs,
        maxOutputBytes,
        onStdout: (chunk) => {
          total += chunk.length;
          if (stdoutBytes + chunk.length <= maxOutputBytes) stdout.push(chunk);
          stdoutBytes += chunk.length;
        },
        onStderr: (chunk) => {
          total += chunk.length;
          if (Buffer.concat(stderr).length < 64 * 1024) stderr.push(chunk);
        },
        totalBytes: () => total,
      };
      if (argvOptions.signal) spec.signal = argvOptions.signal;
      const result = await launch(spec);
      if (stdoutBytes > maxOutputBytes) {
        throw new TackleError("workspace", `${argv[0] ?? "command"} printed more than ${maxOutputBytes} bytes`);
      }
      return {
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
        exitCode: result.exitCode,
        timedOut: result.timedOut,
      };
    },
  };
  return sandbox;
}

export interface SandboxSupport {
  available: boolean;
  /** Why not, and how to fix it. */
  reason?: string;
  /** slirp4netns and ip are present, so setup steps can have a restricted network. */
  network: boolean;
}

let detected: Promise<SandboxSupport> | undefined;

function hasCommand(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/**
 * Whether bubblewrap exists and works here: `bwrap --ro-bind / / true`, then the way Tackle
 * actually starts it (as root: dropped to an unprivileged uid).
 */
export function detectSandbox(): Promise<SandboxSupport> {
  detected ??= (async () => {
    const network = hasCommand("slirp4netns") && hasCommand("ip") && hasCommand("nsenter");
    const probe = spawnSync("bwrap", ["--ro-bind", "/", "/", "true"], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
    if (probe.error) return { available: false, network, reason: "bubblewrap (bwrap) is not installed: apt-get install bubblewrap" };
    if (probe.status !== 0) {
      const detail = probe.stderr.toString("utf8").trim();
      return { available: false, network, reason: `bubblewrap does not work here (${detail}); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1)` };
    }
    if (isRoot() && !(hasCommand("setpriv") && hasCommand("unshare"))) {
      return { available: false, network, reason: "running as root needs setpriv and unshare (util-linux) to drop privileges" };
    }
    const dir = await mkdtemp(path.join(tmpdir(), "tackle-probe-"));
    try {
      if (isRoot()) await chown(dir, DEFAULT_IDENTITY.uid, DEFAULT_IDENTITY.gid);
      const result = await createSandboxExec({ root: dir, mode: "bwrap" }).run("touch probe && echo ok", { timeoutMs: 20_000 });
      if (result.exitCode !== 0 || !result.output.includes("ok")) {
        return { available: false, network, reason: `bubblewrap fails as Tackle starts it: ${result.output.trim().slice(0, 500)}` };
      }
      return { available: true, network };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return detected;
}
