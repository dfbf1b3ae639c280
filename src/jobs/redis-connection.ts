import { Redis } from "ioredis";
import { TackleError, errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";

/** Reconnect quickly, capped at 2 s: a Redis restart should cost seconds, not minutes. */
const RECONNECT = {
  connectTimeout: 2_000,
  retryStrategy: (times: number) => Math.min(100 * 2 ** times, 2_000),
};

/**
 * A Redis connection for the job engine, with its errors logged at debug (each operation reports its
 * own failure; an unhandled "error" event would crash the process).
 */
export interface ConnectionOptions {
  /** null for blocking connections (BullMQ workers, subscribers). */
  maxRetriesPerRequest: number | null;
  commandTimeout?: number;
  /** False where a command must fail at once with Redis down (enqueue answers 503). @defaultValue true */
  enableOfflineQueue?: boolean;
}

export function connectRedis(url: string, logger: Logger, label: string, options: ConnectionOptions): Redis {
  const redis = new Redis(url, { ...RECONNECT, ...options });
  redis.on("error", (error: Error) => logger.debug({ err: error.message }, `${label}: redis connection error`));
  return redis;
}

/** The error of a Redis-backed operation that could not run: retryable, and a 503 at the webhook. */
export function redisUnavailable(what: string, cause?: unknown): TackleError {
  const detail = cause === undefined ? "" : `: ${errorMessage(cause)}`;
  return new TackleError("queue_unavailable", `Redis is unavailable; could not ${what}${detail}`, { retryable: true, cause });
}
