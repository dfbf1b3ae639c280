import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MemoryBackend } from "../jobs/memory-store.js";
import { TackleError, errorMessage } from "../errors/index.js";
import { withLock } from "./file-lock.js";
import { checkRepoHost, parseRepoKey } from "./repo-key.js";
import { fromStoredMemory, toMemorySummary, toStoredMemory } from "./stored-memory.js";

export interface FileMemoryBackendOptions {
  /**
   * TACKLE_HOME: memories go to `<home>/memory/<host>/<id>.json`, the names jobs saw to
   * `<home>/memory/<host>/names.json`.
   */
  home: string;
  /** How long a write waits for another process's. @defaultValue 30_000 */
  lockTimeoutMs?: number;
}

/** Entries by name, as read: values unchecked, so a write keeps what it cannot read. */
type Entries = Map<string, unknown>;

/** The object a file keeps its entries under: memories by name, or repository ids by `owner/repo`. */
type Section = "memories" | "names";

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
    const { host, id } = parseRepoKey(repoKey);
    return path.join(options.home, "memory", host, `${id}.json`);
  };
  // Checked again here, not trusted from the caller: it becomes a path.
  const namesOf = (host: string): string => path.join(options.home, "memory", checkRepoHost(host), "names.json");

  const update = <T>(file: string, change: (entries: Entries) => { result: T; write: boolean }, section: Section = "memories"): Promise<T> =>
    withLock(
      `${file}.lock`,
      async () => {
        const entries = await readEntries(file, section);
        const { result, write } = change(entries);
        if (write) await writeEntries(file, entries, section);
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

    recordName: (host, fullName, id) =>
      update(
        namesOf(host),
        (names) => {
          const changed = names.get(fullName) !== id;
          names.set(fullName, id);
          return { result: undefined, write: changed };
        },
        "names",
      ),

    async idOf(host, fullName) {
      const id = (await readEntries(namesOf(host), "names")).get(fullName);
      return typeof id === "number" && Number.isSafeInteger(id) ? id : null;
    },

    async close() {},
  };
}

async function readEntries(file: string, section: Section = "memories"): Promise<Entries> {
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
  const entries = (parsed as Record<string, unknown> | null)?.[section];
  if (typeof entries !== "object" || entries === null || Array.isArray(entries)) throw unreadable(file, `it has no \`${section}\` object`);
  return new Map(Object.entries(entries));
}

async function writeEntries(file: string, entries: Entries, section: Section = "memories"): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomUUID()}.tmp`;
  const text = `${JSON.stringify({ version: FORMAT_VERSION, [section]: Object.fromEntries(entries) }, null, 2)}\n`;
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
