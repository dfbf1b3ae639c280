import { TackleError } from "../errors/index.js";
import { trimMasked } from "../util/redact.js";
import { formatRepoKey, formatRepoName, parseRepoKey } from "../workspace/repo-key.js";
import { MEMORY_LIMITS, type MemoryBackend, type MemoryStore, type MemoryWrite } from "./memory-store.js";

/**
 * The one place memory's limits are enforced, whatever the backend: the repository key (canonical,
 * lower case), the name, the description and the content's size, and the count the backend reports.
 * The messages are read by the model (MemoryWrite's result), so each says how to fix the call.
 */
export function checkedMemoryStore(backend: MemoryBackend): MemoryStore {
  return {
    async list(repoKey) {
      const memories = await backend.list(canonicalKey(repoKey));
      return memories.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    // Async throughout, so a refused key or name rejects the promise rather than throwing at the call.
    get: async (repoKey, name) => backend.get(canonicalKey(repoKey), checkName(name)),
    async put(repoKey, memory) {
      const key = canonicalKey(repoKey);
      const outcome = await backend.put(key, checkedMemory(memory), MEMORY_LIMITS.maxMemories);
      if (outcome === "full") {
        throw new TackleError(
          "memory_full",
          `this repository already has ${MEMORY_LIMITS.maxMemories} memories, the limit, so "${memory.name}" was not stored: ` +
            "fold it into an existing memory, or delete one that no longer helps (MemoryWrite with its name and empty content) and write again",
        );
      }
      return outcome;
    },
    delete: async (repoKey, name) => backend.delete(canonicalKey(repoKey), checkName(name)),
    async recordName(host, fullName, id) {
      const name = canonicalName(host, fullName);
      await backend.recordName(name.host, name.fullName, parseRepoKey(formatRepoKey({ host, id })).id);
    },
    async idOf(host, fullName) {
      const name = canonicalName(host, fullName);
      return backend.idOf(name.host, name.fullName);
    },
    close: () => backend.close(),
  };
}

function canonicalKey(repoKey: string): string {
  return formatRepoKey(parseRepoKey(repoKey));
}

function canonicalName(host: string, fullName: string): { host: string; fullName: string } {
  const [owner = "", repo = "", ...rest] = fullName.split("/");
  if (rest.length > 0 || repo === "") throw new TackleError("invalid_input", `"${fullName}" is not OWNER/NAME, such as octo/widgets`);
  return formatRepoName({ host, owner, repo });
}

function checkName(name: string): string {
  if (!MEMORY_LIMITS.name.test(name)) {
    throw new TackleError(
      "invalid_input",
      `"${name.slice(0, 80)}" is not a memory name: use 1 to 64 lowercase letters, digits and dashes, such as "test-commands"`,
    );
  }
  return name;
}

// Controls and line breaks: the description is one line of the prompt's index.
const CONTROL = /\p{Cc}/u;

/** The memory as it is stored (its description trimmed), or why it cannot be. */
function checkedMemory(memory: MemoryWrite): MemoryWrite {
  checkName(memory.name);
  const description = trimMasked(memory.description);
  if (description === "") {
    throw new TackleError("invalid_input", `memory "${memory.name}" needs a description: one line saying what it holds, so later jobs know when to read it`);
  }
  if (CONTROL.test(description)) {
    throw new TackleError("invalid_input", `the description of memory "${memory.name}" must be one line, without line breaks or control characters`);
  }
  if (description.length > MEMORY_LIMITS.maxDescriptionChars) {
    throw new TackleError(
      "invalid_input",
      `the description of memory "${memory.name}" is ${description.length} characters; the limit is ${MEMORY_LIMITS.maxDescriptionChars}: say in one short line what it holds`,
    );
  }
  if (memory.content === "") {
    throw new TackleError("invalid_input", `memory "${memory.name}" has no content; to remove a memory, delete it`);
  }
  const bytes = Buffer.byteLength(memory.content, "utf8");
  if (bytes > MEMORY_LIMITS.maxContentBytes) {
    throw new TackleError(
      "invalid_input",
      `the content of memory "${memory.name}" is ${bytes} bytes (UTF-8); the limit is ${MEMORY_LIMITS.maxContentBytes}: ` +
        "keep only what a later job needs, or split it into memories of their own",
    );
  }
  return { ...memory, description };
}
