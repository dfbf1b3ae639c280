import type { Memory, MemorySummary } from "../agent/ports.js";

/** A memory as both backends keep it: under its name (a hash field, a JSON key), without the name. */
export type StoredMemory = Omit<Memory, "name">;

const FIELDS = ["description", "content", "jobId", "actor", "updatedAt"] as const;

export function toStoredMemory(memory: Memory): StoredMemory {
  return { description: memory.description, content: memory.content, jobId: memory.jobId, actor: memory.actor, updatedAt: memory.updatedAt };
}

/**
 * The memory stored under `name`, or null when the value is not one (edited by hand, or by a later
 * version): such an entry reads as absent rather than failing every job's index, and a write replaces it.
 */
export function fromStoredMemory(name: string, value: unknown): Memory | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  for (const field of FIELDS) if (typeof record[field] !== "string") return null;
  const { description, content, jobId, actor, updatedAt } = record as StoredMemory;
  return { name, description, content, jobId, actor, updatedAt };
}

export function toMemorySummary(memory: Memory): MemorySummary {
  return { name: memory.name, description: memory.description, jobId: memory.jobId, actor: memory.actor, updatedAt: memory.updatedAt };
}
