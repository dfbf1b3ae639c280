import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { jobDataSchema, laneKey, type JobData } from "./job-data.js";
import type { LaneKeys, LaneScripts } from "./lane-scripts.js";

export interface IssueLanesOptions {
  keys: LaneKeys;
  scripts: LaneScripts;
  /** The lease: renewed every third of it while the job runs, lapsing when its holder dies. */
  leaseMs: number;
  /** How long a job whose lane is busy waits before looking again (a finishing job wakes it sooner). */
  laneRetryMs: number;
  /** Moves a delayed job to the wait list now, if it is still delayed. */
  promote(id: string): Promise<void>;
  log: Logger;
}

export interface IssueLanes {
  /**
   * Takes the issue's lane for `job`: its latest data (merges included), or null when it was stopped
   * before it ran. A busy lane sends the job back to delayed and throws BullMQ's DelayedError.
   */
  take(job: Job<JobData>, token: string | undefined, lane: string, redis: Redis): Promise<JobData | null>;
  /** Renews the lease while the job runs; `onStop` when `/tackle stop` marked it. Returns the stop function. */
  hold(redis: Redis, lane: string, id: string, onStop: () => void): () => void;
  /**
   * Frees the lane and wakes its pending job. Never throws: a job that ran must not be retried for
   * want of Redis; its lease then lapses on its own.
   */
  release(redis: Redis, lane: string, id: string): Promise<void>;
  /** Keeps the lane through a retry's backoff, so the pending job does not overtake the retry. */
  keepThroughBackoff(redis: Redis, lane: string, id: string, delayMs: number): Promise<void>;
  /**
   * For BullMQ's `failed` event: frees the lane of a finished job (idempotent when our processor
   * already did), and says whether BullMQ failed the job without our processor having run it.
   */
  afterFailed(job: Job<JobData> | undefined, redis: Redis): { data: JobData; reason: string } | null;
}

/**
 * One running job per issue or PR, over BullMQ: a lease key (`SET PX`) names the job that holds the
 * lane; the lane's pending job is named in another key, so newer triggers merge into it. The atomic
 * steps are Lua (lane-scripts.ts); this is when each one is taken.
 */
export function createIssueLanes(options: IssueLanesOptions): IssueLanes {
  const { keys, scripts, leaseMs, laneRetryMs, log } = options;

  const release = async (redis: Redis, lane: string, id: string): Promise<void> => {
    try {
      const pendingId = await scripts.release(redis, lane, id);
      if (pendingId) await options.promote(pendingId).catch(() => undefined);
    } catch (error) {
      log.warn({ err: errorMessage(error), jobId: id, lane }, "could not release the lane lease; it lapses on its own");
    }
  };

  return {
    async take(job, token, lane, redis) {
      const id = job.id!;
      const claim = await scripts.claim(redis, lane, id, leaseMs);
      if (claim.kind === "cancelled") {
        log.info({ jobId: id, lane }, "job stopped before it ran");
        if (claim.pendingId) await options.promote(claim.pendingId).catch(() => undefined);
        return null;
      }
      if (claim.kind === "busy") {
        await job.moveToDelayed(Date.now() + laneRetryMs, token);
        // The holder may have released between the claim and the move, and found nothing to wake.
        if ((await redis.get(keys.lease(lane))) === null) await job.promote().catch(() => undefined);
        throw new DelayedError();
      }
      const data = parseStored(claim.data);
      if (data) return data;
      await release(redis, lane, id);
      throw new UnrecoverableError("the job's data is missing or invalid");
    },

    hold(redis, lane, id, onStop) {
      let busy = false;
      const timer = setInterval(
        () => {
          if (busy) return;
          busy = true;
          scripts
            .renew(redis, lane, id, leaseMs)
            .then(({ held, cancelled }) => {
              if (!held) log.error({ jobId: id, lane }, "lane lease taken by another job while this one runs");
              if (cancelled) onStop();
            })
            .catch((error: unknown) => log.warn({ err: errorMessage(error), jobId: id }, "could not renew the lane lease"))
            .finally(() => {
              busy = false;
            });
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      );
      return () => clearInterval(timer);
    },

    release,

    async keepThroughBackoff(redis, lane, id, delayMs) {
      await scripts.renew(redis, lane, id, delayMs + leaseMs).catch(() => undefined);
    },

    afterFailed(job, redis) {
      const data = jobDataSchema.safeParse(job?.data);
      if (!job?.id || !data.success) return null;
      if (job.finishedOn) void release(redis, laneKey(data.data), job.id);
      // BullMQ's stalled checker, once a job has stalled more than `maxStalledCount` times (its workers
      // kept dying), stores a deferred failure on it; the next worker to take the job fails it with
      // that reason before calling any processor. No other path sets it for jobs without parents.
      if (!job.deferredFailure) return null;
      return { data: data.data, reason: job.failedReason || job.deferredFailure };
    },
  };
}

function parseStored(json: string): JobData | null {
  try {
    const parsed = jobDataSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
