import { readdirSync, readFileSync } from "node:fs";
import { TackleError } from "../errors/index.js";

/** Rounds of "list, stop the new ones" before giving up on a job that keeps making processes. */
const MAX_ROUNDS = 64;
/** How long a signalled process may take to show as stopped. */
const STOP_WAIT_MS = 2_000;

/**
 * What the last freeze knew: the job's processes, complete as of the kernel's pid cursor `cursor`.
 * While no task is created anywhere (the cursor has not moved), no process can have joined them.
 */
export interface FreezeMemo {
  cursor: number;
  pids: number[];
}

/**
 * Stops (SIGSTOP) every process `list` names and returns once there was an instant when all of the
 * job's processes were stopped at once: then none is left running that could start another, or
 * continue one (a process of the job may send SIGCONT). Each round reads every stopped process's
 * state and CPU time, lists the job's processes, and reads them again: when nothing new was listed and
 * no reading changed (each process stopped at both readings, having run for no time between them),
 * every process was stopped throughout the listing, so the listing was complete. A round that finds
 * a new process stops it and goes again; one that finds a process continued stops them all again.
 *
 * Listing reads all of /proc, which is slow on some hosts, so the kernel's pid cursor saves it: while
 * no task is created anywhere (the cursor has not moved since `memo` was complete), `memo` is the
 * listing. Resolves with the function that continues them all, and what the next freeze may start
 * from. Fails closed, continuing what it stopped, when the job does not settle.
 */
export async function freezeProcesses(list: () => number[], memo?: FreezeMemo): Promise<{ thaw: () => void; memo: FreezeMemo }> {
  const stopped = new Set<number>();
  const thaw = (): void => {
    for (const pid of stopped) signal(pid, "SIGCONT");
  };
  try {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const before = readings(stopped);
      const listed = memo !== undefined && memo.cursor === pidCursor() ? memo.pids : list();
      const fresh = listed.filter((pid) => !stopped.has(pid));
      if (fresh.length > 0) {
        for (const pid of fresh) {
          signal(pid, "SIGSTOP");
          stopped.add(pid);
        }
        await waitStopped(fresh);
        continue;
      }
      if (unchangedAndStopped(before, readings(stopped))) return { thaw, memo: { cursor: pidCursor(), pids: [...stopped] } };
      // One of them ran meanwhile: a process of the job continued it.
      for (const pid of stopped) signal(pid, "SIGSTOP");
      await waitStopped([...stopped]);
    }
    throw new TackleError("workspace", `the job's processes would not stay paused (${stopped.size} stopped, ${MAX_ROUNDS} rounds)`);
  } catch (error) {
    thaw();
    throw error;
  }
}

/**
 * Each process's state and the CPU time it has run (/proc/PID/schedstat, in ns), or "gone". A live
 * main thread takes part in every stop and continue of its process, so its readings stand for the
 * process; a main thread that has ended ('Z') while other threads run does not, so then every thread
 * is read.
 */
function readings(pids: ReadonlySet<number>): Map<number, string> {
  const read = new Map<number, string>();
  for (const pid of pids) {
    try {
      const leader = taskReading(`/proc/${pid}`);
      read.set(pid, leader.startsWith("Z") ? threadReadings(pid) : leader);
    } catch {
      read.set(pid, "gone");
    }
  }
  return read;
}

function taskReading(dir: string): string {
  return `${stateOf(readFileSync(`${dir}/stat`, "latin1"))} ${readFileSync(`${dir}/schedstat`, "latin1").trim()}`;
}

/** Every thread's reading, the least stopped one's state first ("R …" before "T …"): how a process with an ended main thread reads. */
function threadReadings(pid: number): string {
  const threads: string[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.push(`${tid}:${taskReading(`/proc/${pid}/task/${tid}`)}`);
    } catch {
      // ended meanwhile
    }
  }
  const running = threads.find((thread) => !HALTED.has(thread.charAt(thread.indexOf(":") + 1)));
  return `${running === undefined ? "Z" : "R"} ${threads.join(" ")}`;
}

/**
 * Whether every process was stopped (or a zombie, or gone) at both readings and ran for no time in
 * between: a stopped process that is continued must run to stop again, so it was stopped throughout.
 */
function unchangedAndStopped(before: ReadonlyMap<number, string>, after: ReadonlyMap<number, string>): boolean {
  for (const [pid, reading] of before) {
    if (after.get(pid) !== reading) return false;
    if (reading !== "gone" && !HALTED.has(reading.charAt(0))) return false;
  }
  return true;
}

/**
 * The last pid the kernel handed out in Tackle's pid namespace (/proc/loadavg's last field), which
 * moves with every process or thread created anywhere below it, containers and sandboxes included.
 * NaN when unreadable, which never equals itself: every freeze then lists.
 */
function pidCursor(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "latin1").trim().split(" ").at(-1));
  } catch {
    return Number.NaN;
  }
}

/** Waits until each process is stopped, a zombie, or gone: a signal sent is not yet a signal taken. */
async function waitStopped(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + STOP_WAIT_MS;
  let waiting = pids.filter((pid) => !isHalted(pid));
  while (waiting.length > 0) {
    if (Date.now() > deadline) throw new TackleError("workspace", `process ${waiting[0]} of the job did not stop within ${STOP_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
    waiting = waiting.filter((pid) => !isHalted(pid));
  }
}

const HALTED = new Set(["T", "t", "Z", "X"]);

function isHalted(pid: number): boolean {
  try {
    const state = stateOf(readFileSync(`/proc/${pid}/stat`, "latin1"));
    // An ended main thread says nothing of the others.
    return state === "Z" ? threadReadings(pid).startsWith("Z") : HALTED.has(state);
  } catch {
    return true; // gone
  }
}

/** The state letter of a /proc/PID/stat line: after the command name, which may itself hold spaces and parens. */
function stateOf(stat: string): string {
  return stat.charAt(stat.lastIndexOf(")") + 2);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/**
 * `roots` and every process below them, from the host's /proc. Under bubblewrap an orphan is
 * re-parented to its sandbox's pid 1, which is below its root; without it, a process that detaches
 * itself (setsid, double fork) is re-parented to the host's init and is no longer found.
 */
export function processTree(roots: Iterable<number>): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const siblings = children.get(ppid);
      if (siblings) siblings.push(Number(entry));
      else children.set(ppid, [Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [...roots];
  const seen = new Set<number>();
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (seen.has(pid)) continue;
    seen.add(pid);
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}
