import { TackleError } from "../errors/index.js";
import type { MemoryPort } from "../agent/ports.js";
import type { MemoryStore } from "../jobs/memory-store.js";
import type { Redactor } from "../util/redact.js";

export interface MemoryPortOptions {
  /** The store's limits reject bad names and sizes; this port adds redaction and provenance. */
  store: MemoryStore;
  /** `host/id` (formatRepoKey) of the job's repository. */
  repoKey: string;
  jobId: string;
  /** Who triggered the job: the provenance shown beside each memory in later prompts. */
  actor: string;
  /** The job's redactor: memory outlives the job, so a secret written there would reach every later one. */
  redact: Redactor;
  /** Epoch milliseconds. */
  clock: () => number;
}

/** The repository's memory as one job sees it: reads and writes bound to its repository and provenance. */
export function createMemoryPort(options: MemoryPortOptions): MemoryPort {
  const { store, repoKey } = options;
  return {
    // The store sorts by name.
    index: () => store.list(repoKey),
    read: (name) => store.get(repoKey, name),
    async write(entry) {
      // A name is shown everywhere (index, comment, CLI) and cannot hold a redaction marker: refuse one that masks.
      const name = options.redact(entry.name);
      if (name !== entry.name) {
        throw new TackleError("invalid_input", "the memory's name looks like a secret; choose a descriptive name");
      }
      if (entry.content.trim() === "") return (await store.delete(repoKey, entry.name)) ? "deleted" : "absent";
      return store.put(repoKey, {
        name,
        description: options.redact(entry.description),
        content: options.redact(entry.content),
        jobId: options.jobId,
        actor: options.actor,
        updatedAt: new Date(options.clock()).toISOString(),
      });
    },
  };
}
