import { Redis } from "ioredis";
import { TackleError, errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { maskUrl } from "../logging/mask-url.js";

/** Reconnect quickly, capped at 2 s: a Redis restart should cost seconds, not minutes. */
const RECONNECT = {
  connectTimeout: 2_000,
  retryStrategy: (times: number) => Math.min(100 * 2 ** times, 2_000),
};

export interface ConnectionOptions {
  /** null for blocking connections (BullMQ workers, subscribers). */
  maxRetriesPerRequest: number | null;
  commandTimeout?: number;
  /** False where a command must fail at once with Redis down (enqueue answers 503). @defaultValue true */
  enableOfflineQueue?: boolean;
}

/**
 * Why a connection failed, in words: a refused connection to a name with several addresses is an
 * AggregateError whose own message is empty.
 */
function connectionErrorReason(error: Error): string {
  if (error.message) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  const inner = error instanceof AggregateError ? error.errors.find((e): e is Error => e instanceof Error && e.message !== "") : undefined;
  return inner?.message ?? code ?? error.name;
}

/** Where a connection goes, without its credentials: host and port, or the masked URL when it has none. */
function destination(url: string): string {
  try {
    return new URL(url).host || maskUrl(url);
  } catch {
    return maskUrl(url);
  }
}

/**
 * A Redis connection for the job engine. Losing Redis is logged at warn with the reason, once per
 * outage (ioredis reports every failed reconnect, up to one each 2 s; those go to debug), and its
 * return at info. The "error" listener is also what keeps an unreachable Redis from crashing the
 * process: each operation reports its own failure.
 */
export function connectRedis(url: string, logger: Logger, label: string, options: ConnectionOptions): Redis {
  const redis = new Redis(url, { ...RECONNECT, ...options });
  const where = destination(url);
  let down = false;
  redis.on("error", (error: Error) => {
    const reason = connectionErrorReason(error);
    if (down) {
      logger.debug({ err: reason, redis: where }, `${label}: redis connection error`);
      return;
    }
    down = true;
    logger.warn({ err: reason, redis: where }, `${label}: Redis is unavailable (${reason}); reconnecting`);
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    logger.info({ redis: where }, `${label}: Redis connection restored`);
  });
  return redis;
}

/**
 * One PING over a connection of its own that does not retry, for `tackle doctor`: ok, or why not in the
 * connection's own words (ECONNREFUSED, ENOTFOUND, WRONGPASS), not ioredis's "Connection is closed".
 */
export async function pingRedis(url: string, timeoutMs = 2_000): Promise<{ ok: true } | { ok: false; reason: string }> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let connectionError: Error | undefined;
  client.on("error", (error: Error) => {
    connectionError ??= error;
  });
  try {
    await client.connect();
    const reply = await client.ping();
    return reply === "PONG" ? { ok: true } : { ok: false, reason: `PING answered ${reply}` };
  } catch (error) {
    return { ok: false, reason: connectionErrorReason(connectionError ?? (error instanceof Error ? error : new Error(String(error)))) };
  } finally {
    client.disconnect();
  }
}

/** The error of a Redis-backed operation that could not run: retryable, and a 503 at the webhook. */
export function redisUnavailable(what: string, cause?: unknown): TackleError {
  const detail = cause === undefined ? "" : `: ${errorMessage(cause)}`;
  return new TackleError("queue_unavailable", `Redis is unavailable; could not ${what}${detail}`, { retryable: true, cause });
}

/** A connection opened on its first operation, each operation failing as `redisUnavailable`. */
export interface LazyRedis {
  /** Runs one operation; a closed store, a connection or a command that fails: `queue_unavailable`. */
  run<T>(what: string, operation: (redis: Redis) => Promise<T>): Promise<T>;
  /** Drops the connection; later operations fail with "the <label> is closed". */
  close(): void;
}

/**
 * The connection of a Redis-backed store (memory, daily budget, job store): opened on first use, so a
 * process that never needs it holds none, with a short command timeout and one retry per command.
 */
export function lazyRedis(options: { redisUrl: string; operationTimeoutMs?: number }, logger: Logger, label: string): LazyRedis {
  let client: Redis | undefined;
  let closed = false;
  const redis = (): Redis => {
    if (closed) throw new Error(`the ${label} is closed`);
    client ??= connectRedis(options.redisUrl, logger, label, { maxRetriesPerRequest: 1, commandTimeout: options.operationTimeoutMs ?? 3_000 });
    return client;
  };
  return {
    async run(what, operation) {
      try {
        return await operation(redis());
      } catch (error) {
        throw redisUnavailable(what, error);
      }
    },
    close() {
      closed = true;
      client?.disconnect();
    },
  };
}
