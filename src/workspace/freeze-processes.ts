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
 * Stops (SIGSTOP) every process `list` names, again and again until a listing finds none that is
 * not stopped already: a process stopped cannot fork, so a listing taken after every known one is
 * seen stopped names every process there is. Listing reads all of /proc, which is slow on some hosts,
 * so the kernel's pid cursor saves listings: when no task was created anywhere since the processes
 * were last known complete (`memo`), that set is still complete; and when none was created while the
 * ones just listed were being stopped, that listing was complete. Resolves with the function that
 * continues them all, and what the next freeze may start from. Fails closed, continuing what it
 * stopped, when the set never settles or a process does not stop.
 */
export async function freezeProcesses(list: () => number[], memo?: FreezeMemo): Promise<{ thaw: () => void; memo: FreezeMemo }> {
  const stopped = new Set<number>();
  const thaw = (): void => {
    for (const pid of stopped) signal(pid, "SIGCONT");
  };
  try {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const before = pidCursor();
      const listed = round === 0 && memo !== undefined && memo.cursor === before ? memo.pids : list();
      const fresh = listed.filter((pid) => !stopped.has(pid));
      if (fresh.length === 0 && round > 0) return { thaw, memo: { cursor: before, pids: [...stopped] } };
      for (const pid of fresh) {
        signal(pid, "SIGSTOP");
        stopped.add(pid);
      }
      await waitStopped(fresh);
      const after = pidCursor();
      if (after === before) return { thaw, memo: { cursor: after, pids: [...stopped] } };
    }
    throw new TackleError("workspace", `the job's processes kept multiplying while being paused (${stopped.size} stopped)`);
  } catch (error) {
    thaw();
    throw error;
  }
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

/** The process state from /proc/PID/stat: after the command name, which may itself hold spaces and parens. */
function isHalted(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true; // gone
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "T" || state === "t" || state === "Z" || state === "X";
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
