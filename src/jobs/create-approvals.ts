import type { Logger } from "../logging/logger.js";
import type { Approvals } from "./approvals.js";
import { createEmbeddedApprovals } from "./embedded-approvals.js";
import { createRedisApprovals, type RedisApprovalsOptions } from "./redis-approvals.js";

export type CreateApprovalsOptions = Omit<RedisApprovalsOptions, "redisUrl"> & {
  /** REDIS_URL: questions in Redis when set (jobs may run in other processes), in memory otherwise. */
  redisUrl?: string | null;
  logger: Logger;
};

/** The approvals store for this process, on the same backend choice as the queue. */
export function createApprovals(options: CreateApprovalsOptions): Approvals {
  const { redisUrl, ...rest } = options;
  return redisUrl ? createRedisApprovals({ ...rest, redisUrl }) : createEmbeddedApprovals();
}
