import { readFile } from "node:fs/promises";
import { hostname } from "node:os";

/**
 * Who owns a checkout: a pid plus its start time (so a recycled pid does not count as alive) and
 * the host name (a pid means nothing on another machine sharing TACKLE_HOME).
 */
export interface OwnerRecord {
  pid: number;
  /** Field 22 of /proc/<pid>/stat; null where /proc is not available. */
  startTime: string | null;
  hostname: string;
  createdAt: number;
}

export async function processStartTime(pid: number): Promise<string | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? null;
}

export async function currentOwner(now = Date.now()): Promise<OwnerRecord> {
  return { pid: process.pid, startTime: await processStartTime(process.pid), hostname: hostname(), createdAt: now };
}

export function isCurrentProcess(owner: OwnerRecord): boolean {
  return owner.pid === process.pid && owner.hostname === hostname();
}

/** Whether the owner may still be using what it owns. Owners on other hosts are trusted until `maxAgeMs`. */
export async function isOwnerAlive(owner: OwnerRecord, maxAgeMs: number, now = Date.now()): Promise<boolean> {
  if (now - owner.createdAt > maxAgeMs) return false;
  if (owner.hostname !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (owner.startTime === null) return true;
  return (await processStartTime(owner.pid)) === owner.startTime;
}

export function parseOwnerRecord(text: string): OwnerRecord | null {
  try {
    const value = JSON.parse(text) as Partial<OwnerRecord>;
    if (typeof value.pid !== "number" || typeof value.hostname !== "string" || typeof value.createdAt !== "number") return null;
    return { pid: value.pid, startTime: typeof value.startTime === "string" ? value.startTime : null, hostname: value.hostname, createdAt: value.createdAt };
  } catch {
    return null;
  }
}

/** Whether the process on this host that named a temporary directory after its pid may still be using it. */
export function isLocalPidAlive(pid: number, maxAgeMs: number): Promise<boolean> {
  return isOwnerAlive({ pid, startTime: null, hostname: hostname(), createdAt: Date.now() }, maxAgeMs);
}
