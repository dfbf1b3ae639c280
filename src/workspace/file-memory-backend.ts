import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MemoryBackend } from "../jobs/memory-store.js";
import { TackleError, errorMessage } from "../errors/index.js";
import { withLock } from "./file-lock.js";
import { parseRepoKey } from "./repo-key.js";
import { fromStoredMemory, toMemorySummary, toStoredMemory } from "./stored-memory.js";

export interface FileMemoryBackendOptions {
  /** TACKLE_HOME: memories go to `<home>/memory/<host>/<owner>/<repo>.json`. */
  home: string;
  /** How long a write waits for another process's. @defaultValue 30_000 */
  lockTimeoutMs?: number;
}

/** Entries by name, as read: values unchecked, so a write keeps what it cannot read. */
type Entries = Map<string, unknown>;

const FORMAT_VERSION = 1;

/**
 * Memory on one machine's disk, one JSON file per repository. Writes hold a lock every process on
 * the machine shares (the count and the write in one step) and land by rename, so a reader never sees
 * half a file and needs no lock.
 */
export function createFileMemoryBackend(options: FileMemoryBackendOptions): MemoryBackend {
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  // The key is parsed again here, not trusted from the caller: it becomes a path.
  const fileOf = (repoKey: string): string => {
    const { host, owner, repo } = parseRepoKey(repoKey);
    return path.join(options.home, "memory", host, owner, `${repo}.json`);
  };

  const update = <T>(file: string, change: (entries: Entries) => { result: T; write: boolean }): Promise<T> =>
    withLock(
      `${file}.lock`,
      async () => {
        const entries = await readEntries(file);
        const { result, write } = change(entries);
        if (write) await writeEntries(file, entries);
        return result;
      },
      { timeoutMs: lockTimeoutMs },
    );

  return {
    async list(repoKey) {
      const entries = await readEntries(fileOf(repoKey));
      return [...entries].flatMap(([name, value]) => {
        const memory = fromStoredMemory(name, value);
        return memory ? [toMemorySummary(memory)] : [];
      });
    },

    async get(repoKey, name) {
      const entries = await readEntries(fileOf(repoKey));
      return entries.has(name) ? fromStoredMemory(name, entries.get(name)) : null;
    },

    put: async (repoKey, memory, maxMemories) =>
      update(fileOf(repoKey), (entries) => {
        const existed = entries.has(memory.name);
        if (!existed && entries.size >= maxMemories) return { result: "full" as const, write: false };
        entries.set(memory.name, toStoredMemory(memory));
        return { result: existed ? ("updated" as const) : ("created" as const), write: true };
      }),

    delete: async (repoKey, name) =>
      update(fileOf(repoKey), (entries) => {
        const existed = entries.delete(name);
        return { result: existed, write: existed };
      }),

    async close() {},
  };
}

async function readEntries(file: string): Promise<Entries> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw new TackleError("workspace", `cannot read the memory file ${file}: ${errorMessage(error)}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw unreadable(file, errorMessage(error));
  }
  const memories = (parsed as { memories?: unknown } | null)?.memories;
  if (typeof memories !== "object" || memories === null || Array.isArray(memories)) throw unreadable(file, "it has no `memories` object");
  return new Map(Object.entries(memories));
}

async function writeEntries(file: string, entries: Entries): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomUUID()}.tmp`;
  const text = `${JSON.stringify({ version: FORMAT_VERSION, memories: Object.fromEntries(entries) }, null, 2)}\n`;
  try {
    // Memory may hold what the repository's code says; only the operator's user reads it.
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw new TackleError("workspace", `cannot write the memory file ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

/** Never overwritten: a write would drop every memory in it. */
function unreadable(file: string, reason: string): TackleError {
  return new TackleError("workspace", `${file} is not a memory file (${reason}); fix or remove it`);
}
