import type { Logger } from "../logging/logger.js";
import { createFileMemoryBackend } from "../workspace/file-memory-backend.js";
import { checkedMemoryStore } from "./checked-memory-store.js";
import type { MemoryStore } from "./memory-store.js";
import { createRedisMemoryBackend } from "./redis-memory-backend.js";

export interface CreateMemoryStoreOptions {
  /** REDIS_URL: memory in Redis when set, shared by workers on every machine; files under `home` otherwise. */
  redisUrl?: string | null;
  /** TACKLE_HOME, for the file backend. */
  home: string;
  /** Redis key prefix, shared with the queue's. @defaultValue "tackle" */
  prefix?: string;
  logger: Logger;
}

/** The durable memory of this process, on the same backend choice as the queue, with its limits checked. */
export function createMemoryStore(options: CreateMemoryStoreOptions): MemoryStore {
  const backend = options.redisUrl
    ? createRedisMemoryBackend({ redisUrl: options.redisUrl, logger: options.logger, ...(options.prefix === undefined ? {} : { prefix: options.prefix }) })
    : createFileMemoryBackend({ home: options.home });
  return checkedMemoryStore(backend);
}
