import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import readline from "node:readline";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "worker-child.ts");

export interface WorkerEvent {
  event: string;
  [key: string]: unknown;
}

/** A worker-child.ts process: its events, and a way to wait for one. */
export interface WorkerProcess {
  pid: number;
  events: WorkerEvent[];
  next(event: string, timeoutMs?: number): Promise<WorkerEvent>;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

export function spawnWorker(env: { REDIS_URL: string; QUEUE_NAME: string; QUEUE_PREFIX: string; DRAIN_MS?: string }): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: { ...process.env, ...env, LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const events: WorkerEvent[] = [];
  const waiters: Array<() => void> = [];
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      events.push(JSON.parse(line) as WorkerEvent);
    } catch {
      return;
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let seen = 0;
  const next = async (event: string, timeoutMs = 15_000): Promise<WorkerEvent> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = events.findIndex((e, i) => i >= seen && e.event === event);
      if (index >= 0) {
        seen = index + 1;
        return events[index]!;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`worker ${child.pid}: no "${event}" within ${timeoutMs} ms (saw ${JSON.stringify(events)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return {
    pid: child.pid!,
    events,
    next,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
    },
  };
}
