import type { Logger } from "../logging/logger.js";
import { createBullmqQueue, type BullmqQueueOptions } from "./bullmq-queue.js";
import { createEmbeddedQueue, type EmbeddedQueueOptions } from "./embedded-queue.js";
import type { Queue } from "./queue.js";

export type CreateQueueOptions = Omit<BullmqQueueOptions, "redisUrl"> &
  Pick<EmbeddedQueueOptions, "dedupeWindow"> & {
    /** REDIS_URL: BullMQ on Redis when set, the in-process queue otherwise. */
    redisUrl?: string | null;
    logger: Logger;
  };

/**
 * The queue for this process: BullMQ when a Redis URL is configured, else the embedded queue
 * (which always runs its jobs in-process; `consume` only matters for BullMQ).
 */
export function createQueue(options: CreateQueueOptions): Queue {
  const { redisUrl, dedupeWindow, ...rest } = options;
  if (redisUrl) return createBullmqQueue({ ...rest, redisUrl });
  return createEmbeddedQueue({
    logger: options.logger,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(dedupeWindow === undefined ? {} : { dedupeWindow }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.abortGraceMs === undefined ? {} : { abortGraceMs: options.abortGraceMs }),
  });
}
