import type { Logger } from "../logging/logger.js";
import { createFileJobStore } from "./file-job-store.js";
import type { JobStore, JobStoreLimits } from "./job-store.js";
import { createRedisJobStore } from "./redis-job-store.js";

export interface CreateJobStoreOptions {
  /** REDIS_URL: the store in Redis when set, readable by the server whatever machine ran the job; files under `home` otherwise. */
  redisUrl?: string | null;
  /** TACKLE_HOME, for the file store. */
  home: string;
  /** Redis key prefix, shared with the queue's. @defaultValue "tackle" */
  prefix?: string;
  /** @defaultValue JOB_STORE_LIMITS */
  limits?: Partial<JobStoreLimits>;
  logger: Logger;
}

/** The job store of this process, on the same backend choice as the queue. */
export function createJobStore(options: CreateJobStoreOptions): JobStore {
  const limits = options.limits === undefined ? {} : { limits: options.limits };
  if (options.redisUrl) {
    return createRedisJobStore({
      redisUrl: options.redisUrl,
      logger: options.logger,
      ...limits,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    });
  }
  return createFileJobStore({ home: options.home, ...limits });
}
