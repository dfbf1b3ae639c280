/** Watching one started command: output, time limit, output ceiling, abort, and killing it all. */
import type { ChildProcess } from "node:child_process";
import { TackleError } from "../errors/index.js";

export interface LaunchSpec {
  innerArgv: string[];
  env: Record<string, string>;
  network: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes: number;
  /** Written to stdin, which is then closed; without it (or `keepStdin`) stdin is not opened at all. */
  input?: string;
  /** Leave stdin open for the caller to write (a stdio MCP server). */
  keepStdin?: boolean;
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Total bytes seen so far, to stop a flood. */
  totalBytes(): number;
}

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

export interface Supervision {
  state: { timedOut: boolean; killedForOutput: boolean; aborted: boolean };
  /** Resolves once the process has exited and its output is drained (or given up on). */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the process group and anything registered with `alsoKill`. */
  stop(): void;
  alsoKill(process: ChildProcess): void;
  dispose(): void;
  /** The process's stdin, with `keepStdin`. */
  stdin: NodeJS.WritableStream | undefined;
}

/**
 * Output, time limit, output ceiling and abort for one started command. `sandboxPid` is bubblewrap's
 * pid 1 once known: killing it first tears the pid namespace down and lets the outer bubblewrap exit
 * and reap it, where killing the outer one first would leave it to the host's init as a zombie.
 */
export function supervise(child: ChildProcess, spec: LaunchSpec, killAfterBytes: number, what: string, sandboxPid: () => number | undefined): Supervision {
  const state = { timedOut: false, killedForOutput: false, aborted: false };
  const helpers: ChildProcess[] = [];
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const stop = (): void => {
    const pid = sandboxPid();
    if (pid !== undefined && running()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      setTimeout(() => {
        if (running()) killGroup(child);
      }, 500).unref();
    } else {
      killGroup(child);
    }
    for (const helper of helpers) helper.kill("SIGKILL");
  };
  const onData = (sink: (chunk: Buffer) => void) => (chunk: Buffer) => {
    sink(chunk);
    if (!state.killedForOutput && spec.totalBytes() > killAfterBytes) {
      state.killedForOutput = true;
      stop();
    }
  };
  // A process that ends without reading what was written closes the pipe: EPIPE is not Tackle's error.
  child.stdin?.on("error", () => undefined);
  if (spec.input !== undefined && child.stdin) {
    // A command that exits without reading all of it closes the pipe: EPIPE is its choice, not an error.
    child.stdin.on("error", () => undefined);
    child.stdin.end(spec.input);
  }
  child.stdout?.on("data", onData(spec.onStdout));
  child.stderr?.on("data", onData(spec.onStderr));
  const timer = setTimeout(() => {
    state.timedOut = true;
    stop();
  }, spec.timeoutMs);
  const onAbort = (): void => {
    state.aborted = true;
    stop();
  };
  spec.signal?.addEventListener("abort", onAbort, { once: true });

  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", (error) => reject(new TackleError("sandbox_unavailable", `cannot start ${what}: ${error.message}`)));
    child.once("exit", (code, signal) => {
      // Stragglers (background jobs in "off" mode) die with the group; under bubblewrap the pid
      // namespace is already gone with its init.
      stop();
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

  return {
    state,
    closed,
    stop,
    alsoKill: (helper) => helpers.push(helper),
    stdin: spec.keepStdin === true ? (child.stdin ?? undefined) : undefined,
    dispose: () => {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      for (const helper of helpers) helper.kill("SIGKILL");
    },
  };
}
