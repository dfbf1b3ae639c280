import type { Memory } from "../agent/ports.js";
import type { Logger } from "../logging/logger.js";
import { fromStoredMemory, toMemorySummary, toStoredMemory } from "../workspace/stored-memory.js";
import type { MemoryBackend } from "./memory-store.js";
import { lazyRedis } from "./redis-connection.js";

export interface RedisMemoryBackendOptions {
  redisUrl: string;
  /** Key prefix, shared with the queue's. @defaultValue "tackle" */
  prefix?: string;
  /** Bound on one Redis command. @defaultValue 3_000 */
  operationTimeoutMs?: number;
  logger: Logger;
}

/**
 * Writes one memory unless that would make the repository hold more than its limit: the count and
 * the write in one step, so two workers adding the 100th and 101st memory at once store one of them.
 * KEYS: the repository's hash. ARGV: name, stored JSON, limit. Returns 'created', 'updated' or 'full'.
 */
const PUT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 'updated'
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 'created'
`;

/**
 * Memory shared by workers on many machines: one hash per repository, `<prefix>:memory:<host>/<id>`,
 * each field a memory's name and its value the memory as JSON. No TTL: memory outlives jobs by design.
 */
export function createRedisMemoryBackend(options: RedisMemoryBackendOptions): MemoryBackend {
  const prefix = options.prefix ?? "tackle";
  const log = options.logger.child({ memory: "redis" });
  const hashKey = (repoKey: string): string => `${prefix}:memory:${repoKey}`;
  // The names jobs saw, `owner/repo` → id, one hash per host: for `tackle memory --repo` only.
  const namesKey = (host: string): string => `${prefix}:memory-names:${host}`;
  const connection = lazyRedis(options, log, "memory store");
  const run = connection.run;

  return {
    async list(repoKey) {
      const fields = await run("read the repository's memory", (r) => r.hgetall(hashKey(repoKey)));
      return Object.entries(fields).flatMap(([name, json]) => {
        const memory = parse(name, json);
        return memory ? [toMemorySummary(memory)] : [];
      });
    },

    async get(repoKey, name) {
      const json = await run("read a memory", (r) => r.hget(hashKey(repoKey), name));
      return json === null ? null : parse(name, json);
    },

    async put(repoKey, memory, maxMemories) {
      const outcome = await run("write a memory", (r) =>
        r.eval(PUT, 1, hashKey(repoKey), memory.name, JSON.stringify(toStoredMemory(memory)), String(maxMemories)),
      );
      return outcome as "created" | "updated" | "full";
    },

    async delete(repoKey, name) {
      const removed = await run("delete a memory", (r) => r.hdel(hashKey(repoKey), name));
      return removed > 0;
    },

    async recordName(host, fullName, id) {
      await run("note the repository's name", (r) => r.hset(namesKey(host), fullName, String(id)));
    },

    async idOf(host, fullName) {
      const id = await run("look up the repository's id", (r) => r.hget(namesKey(host), fullName));
      return id !== null && /^\d{1,16}$/.test(id) ? Number(id) : null;
    },

    async close() {
      connection.close();
    },
  };
}

function parse(name: string, json: string): Memory | null {
  try {
    return fromStoredMemory(name, JSON.parse(json));
  } catch {
    return null;
  }
}
