import type { ChildProcess, StdioOptions } from "node:child_process";
import { closeSync } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, realpath, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import type { ExecOptions, ExecPort, ExecResult, StartedProcess, StartOptions } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { freezeProcesses, processTree, type FreezeMemo } from "./freeze-processes.js";
import { createOutputCollector } from "./output-collector.js";
import { openWithoutLinks } from "./fs-util.js";
import { dropPrivileges, niced, spawnHelper, withEnvironment } from "./launch-privileged.js";
import { isRoot, openNetwork, readChildPid, slirpAvailable } from "./sandbox-network.js";
import { processesInNetns, startJobNamespace, type JobNamespace } from "./start-job-namespace.js";
import { supervise, type LaunchSpec, type Supervision } from "./supervise.js";
import {
  DEFAULT_IDENTITY,
  planBwrap,
  probeHostLayout,
  SANDBOX_HOME,
  SANDBOX_PATH,
  type Bind,
  type BwrapPlanInput,
  type Launcher,
  type SandboxIdentity,
} from "./sandbox-plan.js";

export type { SandboxIdentity } from "./sandbox-plan.js";
export { isRoot } from "./sandbox-network.js";

/*
 * How a command is boxed (mode "bwrap"):
 *
 * - Namespaces: bubblewrap with --unshare-all (user, mount, pid, net, ipc, uts, cgroup), no nested user
 *   namespaces (--disable-userns), --die-with-parent, --new-session, --clearenv plus a minimal env.
 *   bubblewrap itself is started with an empty environment, since the sandbox's pid 1 is bubblewrap
 *   and its /proc/1/environ is readable from inside.
 * - Files: /usr (and the /bin, /lib symlinks) read-only; a short list of /etc files, with passwd, group
 *   and hosts synthesised; fresh /proc, /dev, /var/tmp, and /tmp (the job's with `tmpDir`); the job's checkout read-write at its own
 *   path; its .git/config, .git/hooks and objects/info/alternates read-only on top; the repository
 *   mirror read-only (its objects resolve through alternates but cannot be written). Nothing else of
 *   the host: not /root, not the operator's HOME, not TACKLE_HOME's other jobs, not key files.
 * - Identity: commands never run as kernel uid 0. When Tackle runs as root, they run as the sandbox
 *   identity (uid 65534 unless the caller names another): setpriv drops root, every capability and
 *   the supplementary groups before bubblewrap starts, so its user namespace is an unprivileged one.
 *   Running bubblewrap as root with --uid would only relabel root: the kernel would still see uid 0,
 *   exempt from RLIMIT_NPROC, owner of every root file, free to write /proc/sys. An unprivileged
 *   bubblewrap cannot reach sources below a 0700 directory such as /root, so as root the binds are
 *   first made in a private mount namespace (unshare + mount --bind) under a world-traversable stage
 *   directory. The checkout is chowned to the identity; git's own settings stay root's. When Tackle is
 *   not root (the Docker image), bubblewrap runs as Tackle's own uid. Inside: --cap-drop ALL,
 *   /proc/sys and /proc/sysrq-trigger bound read-only over the fresh /proc, no /sys.
 * - Mode "off" as root: the same setpriv drop, then env -i with the command's environment, then bash,
 *   in the checkout; its paths must be reachable by the identity (no stage directory without a mount
 *   namespace), which is checked before the first command.
 * - Helpers (setpriv, bwrap, unshare, nsenter, nice, env) start by absolute path with a fixed
 *   environment (launch-privileged.ts): a command's environment reaches the command only.
 * - Limits: wall-clock timeout (SIGKILL to the sandbox's pid 1 tears the whole pid namespace down,
 *   setsid'd and nohup'd descendants included; the process group as a fallback), output cap with a
 *   hard ceiling, RLIMIT_NPROC (counted per user namespace, so it bounds this sandbox only),
 *   RLIMIT_DATA, RLIMIT_FSIZE, no core dumps, size-limited tmpfs. bubblewrap's outer process exits
 *   before its pid 1 is reaped, so the host needs an init that reaps orphans (tini in the image).
 * - Network: none (loopback only) unless `network: true`: then bubblewrap enters a network namespace
 *   that slirp4netns already serves, with its routes restricted (see sandbox-network.ts). With
 *   `jobNamespace`, the loopback is the job's, one namespace every command without `network: true`
 *   enters (start-job-namespace.ts); with `tmpDir`, /tmp is the job's too.
 */

/**
 * `bwrap`: every command runs in bubblewrap (see README "Security model").
 * `off`: plain `bash -c` with the same cleared environment and rlimits, as the sandbox identity when
 * Tackle is root, for hosts without bubblewrap when the operator set TACKLE_SANDBOX=off (or a workflow
 * set `allow_unsandboxed`). Nothing else is isolated in that mode.
 */
export type SandboxMode = "bwrap" | "off";

export interface SandboxLimits {
  /**
   * RLIMIT_NPROC: processes and threads of the sandbox user, counted in the sandbox's own user
   * namespace under bubblewrap, and host-wide for that uid in mode "off". @defaultValue 1024
   */
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
  /**
   * Host paths visible read-only at the same path, bound by the command identity itself and never
   * staged by root, so the kernel checks that user's access at bind time: a local run's borrowed
   * objects of the user who owns them (and may swap a symlink in). @defaultValue none
   */
  identityReadOnly?: readonly string[];
  /** Paths inside the writable binds re-bound read-only (and so also unrenameable): `.git/config`, `.git/hooks`. */
  readOnlyInside?: readonly string[];
  /** More read-write binds after the root, e.g. `<root>/.git` (a mount point cannot be renamed away). */
  extraWritable?: readonly string[];
  /** Persistent HOME, bound at /home/tackle; a fresh tmpfs per command when absent. */
  homeDir?: string;
  /**
   * The job's /tmp, bound there in every command (TMPDIR in mode "off"); a fresh tmpfs per command
   * when absent.
   */
  tmpDir?: string;
  /**
   * Whether commands without `network: true` share one loopback-only network namespace, started at
   * the first command and ended by `dispose` (mode "bwrap"). Otherwise each command has its own.
   * @defaultValue false
   */
  jobNamespace?: boolean;
  /**
   * Who commands run as when Tackle itself runs as root, in either mode; never root.
   * Ignored when Tackle is not root (commands run as Tackle's own uid).
   * @defaultValue { uid: 65534, gid: 65534 }
   */
  identity?: SandboxIdentity;
  /**
   * Where the restricted network (slirp4netns, which needs Tackle to run as root) is unavailable,
   * let `network: true` commands share the host's network namespace instead of failing. This gives
   * them the host's loopback and LAN: an explicit operator choice, never a default.
   * @defaultValue false
   */
  allowHostNetwork?: boolean;
  /**
   * The namespace of another sandbox of the same job (a local run's main checkout), for a worktree's
   * commands to share its loopback; the other sandbox ends it. @defaultValue one of its own
   */
  sharedNamespace?: NamespaceHolder;
  /**
   * Runs before each command starts (after any pause), and refuses it by throwing: what must be as the
   * host left it where the sandbox does not keep it so (mode "off"), e.g. restoreRepoExtensions.
   * @defaultValue nothing
   */
  beforeEachCommand?: () => Promise<unknown>;
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
  /** The job's network namespace (with `jobNamespace`): another checkout of the job may share it. */
  readonly namespace: NamespaceHolder;
  /** Commands started and not yet finished. */
  readonly running: number;
  /**
   * Kills every command still running and the job's network namespace, and waits for them. Resolves
   * with whether no process of the job is left (in mode "off", only that no command is running).
   */
  dispose(): Promise<boolean>;
  /** Runs an argv (no shell) in the same box, stdout and stderr apart; the git port uses it. */
  runArgv(argv: readonly string[], options: ArgvOptions): Promise<ArgvResult>;
  /** The same, stdout as bytes (a pack the host then indexes). */
  runArgvBytes(argv: readonly string[], options: ArgvOptions): Promise<Omit<ArgvResult, "stdout"> & { stdout: Buffer }>;
}

export interface ArgvOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** More stdout than this fails the command. @defaultValue 64 MiB */
  maxOutputBytes?: number;
  env?: Record<string, string>;
}

const DEFAULT_MAX_OUTPUT = 1_000_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The uid and gid files in a checkout must belong to so commands can write them: as root, the identity
 * they run as, the same in every mode (commands never run as root, sandboxed or not); otherwise null
 * (they run as Tackle's own uid, which owns the files).
 */
export function sandboxOwner(_mode: SandboxMode, identity: SandboxIdentity = DEFAULT_IDENTITY): SandboxIdentity | null {
  return isRoot() ? identity : null;
}

/** Whether `identity` (with no supplementary groups) may search directory `info`. */
function canSearch(info: { uid: number; gid: number; mode: number }, identity: SandboxIdentity): boolean {
  if (info.uid === identity.uid) return (info.mode & 0o100) !== 0;
  if (info.gid === identity.gid) return (info.mode & 0o010) !== 0;
  return (info.mode & 0o001) !== 0;
}

/**
 * Mode "off" as root has no stage directory: each path the command is given must be reachable by the
 * identity itself. Fails closed, naming the directory in the way.
 */
async function assertReachable(paths: readonly string[], identity: SandboxIdentity): Promise<void> {
  for (const p of paths) {
    const real = await realpath(p).catch(() => null);
    if (!real) continue;
    const info = await stat(real);
    let dir = info.isDirectory() ? real : path.dirname(real);
    for (;;) {
      const here = await stat(dir);
      if (!canSearch(here, identity)) {
        throw new TackleError(
          "sandbox_unavailable",
          `without a sandbox, commands run as uid ${identity.uid}, which cannot reach ${p} (${dir} is closed to it): install bubblewrap, or keep TACKLE_HOME (and a local run's repository) where that user can reach them, e.g. TACKLE_HOME=/var/lib/tackle`,
        );
      }
      if (dir === "/") break;
      dir = path.dirname(dir);
    }
  }
}

let stageDirPromise: Promise<string> | undefined;

/** An empty, root-owned, world-traversable directory the private mount namespaces mount over. */
function stageDir(): Promise<string> {
  stageDirPromise ??= (async () => {
    const fixed = "/tmp/.tackle-stage";
    await mkdir(fixed, { mode: 0o755 }).catch(() => undefined);
    const info = await lstat(fixed).catch(() => null);
    if (info?.isDirectory() && info.uid === 0 && (info.mode & 0o022) === 0) return fixed;
    // Someone else owns the fixed name: use a private one instead (under /tmp, never $TMPDIR: the stage
    // script splits its paths on spaces, and these are all it is given besides /proc/<pid>/fd/N).
    const own = await mkdtemp("/tmp/tackle-stage-");
    await chmod(own, 0o755);
    return own;
  })();
  return stageDirPromise;
}

/** Each writable directory, and its path with only the part above it resolved (the host's own directories). */
async function writableAnchors(paths: readonly string[]): Promise<Array<{ given: string; real: string }>> {
  const anchors: Array<{ given: string; real: string }> = [];
  for (const given of paths) {
    const parent = await realpath(path.dirname(given)).catch(() => null);
    if (parent !== null) anchors.push({ given, real: path.join(parent, path.basename(given)) });
  }
  // The deepest first, so a path is taken relative to the nearest writable directory above it.
  return anchors.sort((a, b) => b.given.length - a.given.length);
}

/**
 * The bind for `p` (null when it does not exist). Under a writable anchor, nothing below the anchor
 * is resolved (a link there is the agent's, refused when pinned); elsewhere, the host's path is.
 */
async function resolvedBind(p: string, anchors: ReadonlyArray<{ given: string; real: string }>, dest = p): Promise<Bind | null> {
  const anchor = anchors.find((a) => p === a.given || p.startsWith(`${a.given}/`));
  const src = anchor === undefined ? await realpath(p).catch(() => null) : anchor.real + p.slice(anchor.given.length);
  if (src === null) return null;
  const info = await lstat(src).catch(() => null);
  if (info === null) return null;
  return { src, dest, kind: info.isDirectory() ? "dir" : "file" };
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

/** A command's extra variables: valid names, and none that would change the sandbox's own (`fixed`). */
function checkEnv(env: Readonly<Record<string, string>> | undefined, fixed: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? {})) {
    if (!ENV_NAME.test(key)) throw new TackleError("workspace", `invalid environment variable name '${key}'`);
    if (Object.hasOwn(fixed, key) && fixed[key] !== value)
      throw new TackleError("workspace", `${key} is set by the sandbox itself; a command's environment cannot change it`);
    out[key] = value;
  }
  return out;
}

/** bubblewrap (and setpriv, unshare) hand fd 0 on to the command unchanged. */
function stdinOf(spec: LaunchSpec): "pipe" | "ignore" {
  return spec.input === undefined && spec.keepStdin !== true ? "ignore" : "pipe";
}

/** Host file tools in flight, with the job's processes stopped until the last of them ends. */
interface Pause {
  holders: number;
  /** Resolves with the function that continues what was stopped. */
  frozen: Promise<() => void>;
  released: Promise<void>;
  release(): void;
}

/** Waits for a pause to end, or for `signal` to abort (a job stopped meanwhile must not wait on). */
function untilReleasedOrAborted(pause: Pause, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return pause.released;
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", done, { once: true });
    void pause.released.then(done);
  });
}

interface Launched {
  exitCode: number | null;
  timedOut: boolean;
  killedForOutput: boolean;
}

interface Spawned {
  child: ChildProcess;
  /** bubblewrap's --info-fd (it names the sandbox's pid 1). */
  info?: Readable;
  /** Processes that live as long as the command (the network holder and its slirp4netns). */
  helpers: ChildProcess[];
}

/** One job's network namespace, started on first use and again should its holder have died. */
export interface NamespaceHolder {
  get(): Promise<JobNamespace>;
  /** The namespace if one was started (alive or not). */
  current(): Promise<JobNamespace | undefined>;
  stop(): Promise<void>;
}

function createNamespaceHolder(): NamespaceHolder {
  let namespace: Promise<JobNamespace> | undefined;
  return {
    async get() {
      const current = await namespace?.catch(() => undefined);
      if (current?.alive()) return current;
      const started = startJobNamespace();
      namespace = started;
      // A failed start is tried again by the next command.
      started.catch(() => {
        if (namespace === started) namespace = undefined;
      });
      return started;
    },
    current: async () => namespace?.catch(() => undefined),
    async stop() {
      await (await namespace?.catch(() => undefined))?.stop();
    },
  };
}

export function createSandboxExec(options: SandboxOptions): Sandbox {
  const limits = options.limits ?? {};
  const logger = options.logger;
  const rootIdentity = isRoot() ? (options.identity ?? DEFAULT_IDENTITY) : null;
  let prepared:
    | Promise<{ launcher: Launcher; homeDir: string | undefined; tmpDir: string | undefined; writable: Bind[]; readOnly: Bind[]; readOnlyInside: Bind[] }>
    | undefined;
  let offChecked: Promise<void> | undefined;
  /** Descriptors of what root stages, held for the job (closed by dispose). */
  const pinnedFds: number[] = [];

  function prepare() {
    prepared ??= (async () => {
      const launcher: Launcher = rootIdentity
        ? { kind: "root-drop", identity: rootIdentity, stageDir: await stageDir() }
        : { kind: "unprivileged", identity: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } };
      // Paths under what the sandbox can write are never resolved through their links (the agent
      // makes those): only the part above each writable directory is, and a link below it is refused when pinned.
      const anchors = launcher.kind === "root-drop" ? await writableAnchors([options.root, ...(options.extraWritable ?? [])]) : [];
      const bindOf = (p: string) => resolvedBind(p, anchors);
      const bindsOf = async (paths: readonly string[] | undefined) => {
        const binds: Bind[] = [];
        for (const p of paths ?? []) {
          const bind = await bindOf(p);
          if (bind) binds.push(bind);
        }
        return binds;
      };
      const root = await bindOf(options.root);
      if (root?.kind !== "dir") throw new TackleError("workspace", `sandbox root ${options.root} is not a directory`);
      // What root stages is pinned now: a descriptor opened without following links, bound through
      // /proc/<pid>/fd/N before every command. A path would be resolved again each time, after the
      // agent could rename a directory on it (.git/objects/info) and plant a symlink to a root-only file.
      const pin = (bind: Bind): Bind => {
        if (launcher.kind !== "root-drop") return bind;
        const fd = openWithoutLinks(bind.src, bind.kind);
        pinnedFds.push(fd);
        return { ...bind, src: `/proc/${process.pid}/fd/${fd}` };
      };
      const pinDir = async (dir: string | undefined) => {
        const bind = dir === undefined ? null : await bindOf(dir);
        return bind === null ? undefined : pin(bind).src;
      };
      return {
        launcher,
        homeDir: await pinDir(options.homeDir),
        tmpDir: await pinDir(options.tmpDir),
        writable: [root, ...(await bindsOf(options.extraWritable))].map(pin),
        readOnly: [
          ...(await bindsOf(options.extraReadOnly)).map(pin),
          ...(await bindsOf(options.identityReadOnly)).map((bind) => ({ ...bind, byIdentity: true })),
        ],
        readOnlyInside: (await bindsOf(options.readOnlyInside)).map(pin),
      };
    })();
    return prepared;
  }

  let disposed = false;
  const ownsNamespace = options.sharedNamespace === undefined;
  const namespace = options.sharedNamespace ?? createNamespaceHolder();

  async function jobNamespace(): Promise<JobNamespace> {
    if (disposed) throw new TackleError("aborted", "the job's workspace is disposed");
    return namespace.get();
  }

  /** The sandbox's own variables; neither the sandbox's options nor a command's environment change them. */
  const fixedEnv: Readonly<Record<string, string>> = {
    PATH: SANDBOX_PATH,
    HOME: options.mode === "bwrap" ? SANDBOX_HOME : (options.homeDir ?? tmpdir()),
    USER: "tackle",
    LOGNAME: "tackle",
    LANG: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: options.mode === "bwrap" ? "/tmp" : (options.tmpDir ?? "/tmp"),
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
  };
  const baseEnv = checkEnv(options.env, fixedEnv);

  function innerEnv(extra: Record<string, string> | undefined): Record<string, string> {
    return { ...baseEnv, ...checkEnv(extra, fixedEnv), ...fixedEnv };
  }

  async function spawnBox(spec: LaunchSpec): Promise<Spawned> {
    if (options.mode === "off") {
      // The command's environment is applied last, by env(1): never to setpriv, which starts as root.
      let argv = withEnvironment(spec.env, spec.innerArgv);
      if (rootIdentity) {
        const paths = [
          options.root,
          ...(options.extraWritable ?? []),
          ...(options.extraReadOnly ?? []),
          ...(options.identityReadOnly ?? []),
          ...(options.homeDir !== undefined ? [options.homeDir] : []),
          ...(options.tmpDir !== undefined ? [options.tmpDir] : []),
        ];
        offChecked ??= assertReachable(paths, rootIdentity);
        await offChecked;
        argv = dropPrivileges(rootIdentity, argv);
      }
      const child = spawnHelper(argv, { cwd: options.root, detached: true, stdio: [stdinOf(spec), "pipe", "pipe"] });
      return { child, helpers: [] };
    }
    const setup = await prepare();
    const helpers: ChildProcess[] = [];
    let network: BwrapPlanInput["network"] = "none";
    let holderPid: number | undefined;
    if (spec.network) {
      if (slirpAvailable()) {
        const opened = await openNetwork(spec.signal);
        helpers.push(...opened.helpers);
        holderPid = opened.holderPid;
        network = "joined";
      } else if (options.allowHostNetwork) network = "host";
      else {
        throw new TackleError(
          "sandbox_unavailable",
          "a restricted network for sandboxed setup steps needs slirp4netns, ip, nsenter and unshare (and, without root, a usable /dev/net/tun); or let the operator allow host networking",
        );
      }
    } else if (options.jobNamespace) {
      holderPid = (await jobNamespace()).pid;
      network = "loopback";
    }
    const input = {
      launcher: setup.launcher,
      layout: await probeHostLayout(),
      root: setup.writable[0]?.dest ?? options.root,
      writable: setup.writable,
      readOnly: setup.readOnly,
      readOnlyInside: setup.readOnlyInside,
      env: spec.env,
      network,
      tmpBytes: limits.tmpBytes ?? 1024 ** 3,
      innerArgv: spec.innerArgv,
    };
    try {
      const plan = planBwrap({
        ...input,
        ...(setup.homeDir !== undefined ? { homeDir: setup.homeDir } : {}),
        ...(setup.tmpDir !== undefined ? { tmpDir: setup.tmpDir } : {}),
        ...(holderPid !== undefined ? { holderPid } : {}),
      });
      const stdio: StdioOptions = [stdinOf(spec), "pipe", "pipe", ...plan.fds.map(() => "pipe" as const)];
      // bubblewrap's own environment (the helpers' fixed one) shows through /proc/1/environ inside; the
      // command's comes through a pipe (--args with --setenv), applied in the box.
      const child = spawnHelper(niced(plan.argv), { detached: true, stdio });
      plan.fds.forEach((fd, index) => {
        const stream = child.stdio[index + 3] as Writable;
        // Killed before it read its data (a timeout at start-up), bubblewrap leaves an ECONNRESET
        // here; unhandled, that would take Tackle down.
        stream.on("error", () => undefined);
        if (fd.kind === "data") stream.end(fd.content);
      });
      return { child, helpers, info: child.stdio[plan.infoFd] as Readable };
    } catch (error) {
      for (const helper of helpers) helper.kill("SIGKILL");
      throw error;
    }
  }

  let running = 0;
  /** Every process of the job that is running, with the outer process it was spawned as. */
  const active = new Map<Supervision, ChildProcess>();
  let pause: Pause | undefined;
  /** Commands past the pause check and not yet in `active`, and who waits for them to get there. */
  let launching = 0;
  const launchesSettled: Array<() => void> = [];
  /** The job's processes as the last pause found them, for the next one. */
  let freezeMemo: FreezeMemo | undefined;

  async function launch(spec: LaunchSpec): Promise<Launched> {
    running += 1;
    try {
      const supervision = await startSupervised(spec);
      try {
        return await settle(supervision);
      } finally {
        supervision.dispose();
      }
    } finally {
      running -= 1;
    }
  }

  async function startSupervised(spec: LaunchSpec): Promise<Supervision> {
    if (spec.signal?.aborted) throw new TackleError("aborted", "command cancelled before it started");
    // Nothing starts while a host file tool has the job paused: it would run unpaused beside it.
    while (pause && spec.signal?.aborted !== true) await untilReleasedOrAborted(pause, spec.signal);
    if (spec.signal?.aborted) throw new TackleError("aborted", "command cancelled before it started");
    // From here until it is in `active`, a pause that begins waits for it, then pauses it too.
    launching += 1;
    try {
      await options.beforeEachCommand?.();
      return await spawnSupervised(spec);
    } finally {
      launching -= 1;
      if (launching === 0) for (const wake of launchesSettled.splice(0)) wake();
    }
  }

  async function spawnSupervised(spec: LaunchSpec): Promise<Supervision> {
    const { child, info, helpers } = await spawnBox(spec);
    const killAfter = limits.killAfterOutputBytes ?? Math.max(256 * 1024 ** 2, 64 * spec.maxOutputBytes);
    let sandboxPid: number | undefined;
    const reported = info ? readChildPid(info) : undefined;
    void reported?.then((pid) => (sandboxPid = pid)).catch(() => undefined);
    const what = options.mode === "bwrap" ? "bubblewrap" : rootIdentity ? "setpriv (util-linux)" : "env (coreutils)";
    const supervision = supervise(child, spec, killAfter, what, () => sandboxPid);
    for (const helper of helpers) supervision.alsoKill(helper);
    active.set(supervision, child);
    void supervision.closed.catch(() => undefined).finally(() => active.delete(supervision));
    // Started while the job was being disposed: it must not outlive it.
    if (disposed) {
      supervision.state.aborted = true;
      supervision.stop();
    }
    return supervision;
  }

  async function settle(supervision: Supervision): Promise<Launched> {
    const { state } = supervision;
    const { code, signal } = await supervision.closed;
    if (state.aborted) throw new TackleError("aborted", "command cancelled");
    const exitCode = state.timedOut || state.killedForOutput || signal !== null ? null : code;
    return { exitCode, timedOut: state.timedOut, killedForOutput: state.killedForOutput };
  }

  /** The job's processes now: every running command and everything below it. */
  function jobProcesses(): number[] {
    const roots = [...active.values()].filter((child) => child.exitCode === null && child.signalCode === null).flatMap((child) => child.pid ?? []);
    return roots.length === 0 ? [] : processTree(roots);
  }

  /** Stops the job's processes once the commands being launched are running; nothing to do when none runs. */
  async function freezeJob(): Promise<() => void> {
    while (launching > 0) await new Promise<void>((resolve) => launchesSettled.push(resolve));
    if (active.size === 0) return () => undefined;
    const result = await freezeProcesses(jobProcesses, freezeMemo);
    freezeMemo = result.memo;
    return result.thaw;
  }

  async function pausing<T>(task: () => Promise<T>): Promise<T> {
    if (pause === undefined) {
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      // Set before any await: from now on no command starts until the last holder is done.
      pause = { holders: 0, frozen: freezeJob(), released, release };
    }
    const current = pause;
    current.holders += 1;
    try {
      await current.frozen;
      return await task();
    } finally {
      current.holders -= 1;
      if (current.holders === 0) {
        pause = undefined;
        const thaw = await current.frozen.catch(() => undefined);
        thaw?.();
        current.release();
      }
    }
  }

  async function start(argv: readonly string[], startOptions: StartOptions): Promise<StartedProcess> {
    if (argv.length === 0) throw new TackleError("workspace", "nothing to start: the command is empty");
    const collected = { bytes: 0 };
    const count = (sink: (chunk: Buffer) => void) => (chunk: Buffer) => {
      collected.bytes += chunk.length;
      sink(chunk);
    };
    const onStderr = startOptions.onStderr;
    const spec: LaunchSpec = {
      innerArgv: ["bash", "-c", limitPrefix(limits, startOptions.separateStderr !== true), "tackle", ...argv],
      env: innerEnv(startOptions.env),
      network: false,
      // It lives until it ends, is stopped, or the job is disposed.
      timeoutMs: 2 ** 31 - 1,
      maxOutputBytes: DEFAULT_MAX_OUTPUT,
      onStdout: count(startOptions.onStdout),
      onStderr: count(onStderr ?? startOptions.onStdout),
      totalBytes: () => collected.bytes,
      ...(startOptions.stdin === true ? { keepStdin: true } : {}),
    };
    running += 1;
    let supervision: Supervision;
    try {
      supervision = await startSupervised(spec);
    } catch (error) {
      running -= 1;
      throw error;
    }
    const exited = supervision.closed
      .then(({ code, signal }) => {
        const killed = supervision.state.aborted || supervision.state.killedForOutput || signal !== null;
        return { exitCode: killed ? null : code, killed };
      })
      .finally(() => {
        running -= 1;
        supervision.dispose();
      });
    exited.catch(() => undefined);
    return {
      stdin: supervision.stdin,
      exited,
      async stop() {
        supervision.state.aborted = true;
        supervision.stop();
        await exited.catch(() => undefined);
      },
    };
  }

  async function dispose(): Promise<boolean> {
    disposed = true;
    const stopping = [...active.keys()].map((supervision) => {
      // The job is over: its commands end as cancelled, whatever they would have printed.
      supervision.state.aborted = true;
      supervision.stop();
      return supervision.closed.catch(() => undefined);
    });
    await Promise.all(stopping);
    for (const fd of pinnedFds.splice(0)) closeSync(fd);
    // Let what waits on each ending (a background process's count) run first.
    await new Promise((resolve) => setImmediate(resolve));
    const held = await namespace.current();
    // A namespace shared with the job's other checkouts is theirs to end; its processes are checked.
    if (ownsNamespace) await namespace.stop();
    // In a shared namespace the other checkouts' processes live on; this one's were all in `active`.
    if (!held || !ownsNamespace) return running === 0;
    // The kernel tears a pid namespace down asynchronously: give the last processes a moment.
    for (let i = 0; i < 50 && processesInNetns(held.netns).length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    return running === 0 && processesInNetns(held.netns).length === 0;
  }

  const sandbox: Sandbox = {
    sandboxed: options.mode === "bwrap",
    mode: options.mode,
    namespace,
    get running() {
      return running;
    },
    dispose,
    start,
    pausing,

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
      if (execOptions.input !== undefined) spec.input = execOptions.input;
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
      const result = await sandbox.runArgvBytes(argv, argvOptions);
      return { ...result, stdout: result.stdout.toString("utf8") };
    },

    async runArgvBytes(argv, argvOptions) {
      const maxOutputBytes = argvOptions.maxOutputBytes ?? 64 * 1024 * 1024;
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let stdoutBytes = 0;
      let stderrBytes = 0;
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
          if (stderrBytes < 64 * 1024) stderr.push(chunk);
          stderrBytes += chunk.length;
        },
        totalBytes: () => total,
      };
      if (argvOptions.signal) spec.signal = argvOptions.signal;
      const result = await launch(spec);
      if (stdoutBytes > maxOutputBytes) {
        throw new TackleError("workspace", `${argv[0] ?? "command"} printed more than ${maxOutputBytes} bytes`);
      }
      return {
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr).toString("utf8"),
        exitCode: result.exitCode,
        timedOut: result.timedOut,
      };
    },
  };
  return sandbox;
}
