// Fixtures for the sinks that take only masked text (job store, memory, tracking state, the Action's
// summary, the first message). They go through the real redactor, masking the known token formats,
// never a cast: a test cannot hand a sink text the product could not have produced.
import type { Memory } from "../../src/agent/ports.js";
import type { MemoryWrite } from "../../src/jobs/memory-store.js";
import { maskBytes, redactKnownTokens, type Masked, type MaskedBytes } from "../../src/util/redact.js";

export function masked(text: string): Masked {
  return redactKnownTokens(text);
}

export function maskedBytes(content: Buffer | string): MaskedBytes {
  const bytes = maskBytes(Buffer.isBuffer(content) ? content : Buffer.from(content), redactKnownTokens);
  if (bytes === null) throw new Error("the fixture holds something shaped like a token");
  return bytes;
}

export function maskedMemory(memory: Memory): MemoryWrite {
  return { ...memory, name: masked(memory.name), description: masked(memory.description), content: masked(memory.content) };
}
