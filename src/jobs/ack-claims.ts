import type { Redis } from "ioredis";
import type { Logger } from "../logging/logger.js";
import { sleep } from "../util/sleep.js";
import { connectRedis, redisUnavailable } from "./redis-connection.js";

/**
 * Who posts a job's tracking comment, and where it is. The webhook side enqueues first (so a Redis
 * outage is a 503 before anything is written to GitHub) and then acknowledges; the job may start in
 * between, in this or another process. Exactly one of them claims the job and creates the comment;
 * the other waits for its id, so there is never a second tracking comment.
 */
export interface AckClaims {
  /** True for the first caller per job id. */
  claim(jobId: string): Promise<boolean>;
  /** Gives the claim up (the claimer could not post): a waiting job then posts the comment itself. */
  release(jobId: string): Promise<void>;
  /** Records the tracking comment the claimer created. */
  setComment(jobId: string, commentId: number): Promise<void>;
  /** The recorded comment id, waiting up to `timeoutMs` while the claimer is still posting it. */
  waitForComment(jobId: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<number | null>;
  close(): Promise<void>;
}

const CLAIMED = "claimed";
/** Claims outlive any job and its retries. */
const TTL_SECONDS = 7 * 24 * 3600;
const POLL_MS = 250;

async function poll(read: () => Promise<string | null | undefined>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<number | null> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== null && value !== CLAIMED) return Number(value);
    if (value === undefined || value === null || Date.now() >= deadline || options.signal?.aborted) return null;
    await sleep(POLL_MS, options.signal);
  }
}

export function createEmbeddedAckClaims(): AckClaims {
  const claims = new Map<string, string>();
  return {
    async claim(jobId) {
      if (claims.has(jobId)) return false;
      claims.set(jobId, CLAIMED);
      return true;
    },
    async release(jobId) {
      claims.delete(jobId);
    },
    async setComment(jobId, commentId) {
      claims.set(jobId, String(commentId));
    },
    waitForComment: (jobId, options) => poll(async () => claims.get(jobId), options),
    async close() {},
  };
}

export function createRedisAckClaims(options: { redisUrl: string; prefix?: string; logger: Logger }): AckClaims {
  const key = (jobId: string) => `${options.prefix ?? "tackle"}:ack:${jobId}`;
  let client: Redis | undefined;
  const redis = (): Redis => {
    if (client === undefined) {
      client = connectRedis(options.redisUrl, options.logger, "ack claims", { maxRetriesPerRequest: 1, commandTimeout: 3_000 });
    }
    return client;
  };
  const guarded = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw redisUnavailable(what, error);
    }
  };
  return {
    claim: (jobId) => guarded("claim the job", async () => (await redis().set(key(jobId), CLAIMED, "EX", TTL_SECONDS, "NX")) === "OK"),
    release: (jobId) =>
      guarded("release the claim", async () => {
        await redis().del(key(jobId));
      }),
    setComment: (jobId, commentId) =>
      guarded("record the comment", async () => {
        await redis().set(key(jobId), String(commentId), "EX", TTL_SECONDS);
      }),
    waitForComment: (jobId, waitOptions) => guarded("read the comment", () => poll(() => redis().get(key(jobId)), waitOptions)),
    async close() {
      client?.disconnect();
      client = undefined;
    },
  };
}

export function createAckClaims(options: { redisUrl?: string | null; logger: Logger }): AckClaims {
  return options.redisUrl ? createRedisAckClaims({ redisUrl: options.redisUrl, logger: options.logger }) : createEmbeddedAckClaims();
}
