import type { Memory, MemorySummary } from "../agent/ports.js";
import type { Masked } from "../util/redact.js";

/**
 * A memory as it is written: its name, description and content are the agent's words, kept for every
 * later job, so only masked text is stored (the job's memory port masks it).
 */
export type MemoryWrite = Omit<Memory, "name" | "description" | "content"> & { name: Masked; description: Masked; content: Masked };

/**
 * Durable memory of every repository, keyed by `host/id` (see formatRepoKey): GitHub's numeric id, never
 * the name, which GitHub frees on a rename or a deletion. Names are kept beside, for the operator's
 * `tackle memory --repo owner/name`: each job notes its repository's current name. What callers
 * use: `createMemoryStore` checks every key, name and size before a backend sees it, and throws
 * TackleError("invalid_input") or TackleError("memory_full") with a message that says what to do.
 */
export interface MemoryStore {
  /** Every memory's name, description and provenance, sorted by name. */
  list(repoKey: string): Promise<MemorySummary[]>;
  get(repoKey: string, name: string): Promise<Memory | null>;
  put(repoKey: string, memory: MemoryWrite): Promise<"created" | "updated">;
  /** False when there was no such memory. */
  delete(repoKey: string, name: string): Promise<boolean>;
  /** Notes that `owner/name` (`fullName`) on `host` is now the repository with this id; a later note of the name replaces it. */
  recordName(host: string, fullName: string, id: number): Promise<void>;
  /** The id last noted for `owner/name` on `host`, or null when no job here ran on it. */
  idOf(host: string, fullName: string): Promise<number | null>;
  /** Lets go of connections; the store is unusable afterwards. */
  close(): Promise<void>;
}

/**
 * Where the memories are kept: Redis (createRedisMemoryBackend) or files under TACKLE_HOME
 * (createFileMemoryBackend). Backends check nothing but the count, which only they can make atomic
 * with the write: a store's checks live in one place, checkedMemoryStore.
 */
export interface MemoryBackend {
  /** Unsorted. */
  list(repoKey: string): Promise<MemorySummary[]>;
  get(repoKey: string, name: string): Promise<Memory | null>;
  /** "full" (and nothing written) when `memory.name` is new and the repository already holds `maxMemories`. */
  put(repoKey: string, memory: MemoryWrite, maxMemories: number): Promise<"created" | "updated" | "full">;
  delete(repoKey: string, name: string): Promise<boolean>;
  /** `fullName` is `owner/repo` in lower case, `host` checked. */
  recordName(host: string, fullName: string, id: number): Promise<void>;
  idOf(host: string, fullName: string): Promise<number | null>;
  close(): Promise<void>;
}

/** The limits of one repository's memory. */
export const MEMORY_LIMITS = {
  /** Memories per repository: the index of all of them goes into every job's prompt. */
  maxMemories: 100,
  /** Bytes of content, UTF-8. */
  maxContentBytes: 4096,
  /** Characters of description: one line in the prompt's index, so short enough to scan. */
  maxDescriptionChars: 200,
  name: /^[a-z0-9-]{1,64}$/,
} as const;
