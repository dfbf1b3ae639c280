import { Queue as BullQueue, MetricsTime, UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { TackleError, errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { jobDataSchema, laneKey, type JobData } from "./job-data.js";
import { createIssueLanes } from "./issue-lanes.js";
import { laneKeys, laneScripts } from "./lane-scripts.js";
import { mergeJobData } from "./merge-job-data.js";
import type { EnqueueOutcome, JobProcessor, Queue, QueueCounts } from "./queue.js";
import { backoffDelay, isRetryable, isShutdownReason, retryPolicy, shutdownReason, stopReason, type RetryPolicy } from "./retry-policy.js";
import { connectRedis, redisUnavailable } from "./redis-connection.js";

/** How long an idle worker waits for BullMQ to close before it disconnects anyway. */
const IDLE_CLOSE_MS = 2_000;

export interface BullmqQueueOptions {
  redisUrl: string;
  /** @defaultValue "tackle-jobs" */
  queueName?: string;
  /** Key prefix of everything this queue stores. @defaultValue "tackle" */
  prefix?: string;
  /** Jobs this process runs at once (`tackle worker --concurrency`). @defaultValue 2 */
  concurrency?: number;
  /** BullMQ job lock; a worker that stops renewing it (killed) loses the job after this. @defaultValue 30_000 */
  lockDurationMs?: number;
  /** How often workers look for stalled jobs (whose lock lapsed) to run again. @defaultValue 30_000 */
  stalledIntervalMs?: number;
  /**
   * The lane lease: one running job per issue or PR. Renewed every third of it while the job runs;
   * when its holder dies it lapses, but the same job rerun after a stall takes it back at once.
   * @defaultValue 2 × (lockDurationMs + stalledIntervalMs)
   */
  leaseMs?: number;
  /** How long a job whose lane is busy waits before looking again (a finishing job wakes it sooner). @defaultValue 5_000 */
  laneRetryMs?: number;
  /** Attempts and backoff for failed jobs. @defaultValue {@link DEFAULT_RETRY_POLICY} */
  retry?: Partial<RetryPolicy>;
  /** How long a delivery id is remembered. @defaultValue 259_200 (3 days, GitHub's redelivery window) */
  dedupeTtlSeconds?: number;
  /** How long `enqueue` waits for the first connection before failing (a lost one fails at once). @defaultValue 500 */
  connectWaitMs?: number;
  /** Bound on one `enqueue` or `cancel`. @defaultValue 3_000 */
  operationTimeoutMs?: number;
  /** How long jobs aborted at the end of `close` get to return. @defaultValue 5_000 */
  abortGraceMs?: number;
  logger: Logger;
  /** Run jobs in this process (`tackle worker`, `server --with-worker`), or only enqueue. */
  consume: boolean;
  /**
   * Called when BullMQ gives up on a job without our processor having ended it (its workers kept
   * dying, so the stalled checker failed it), so the job can still end with a word on the issue.
   */
  onDead?: (data: JobData, reason: string) => Promise<void>;
}

const JOB_NAME = "tackle-job";
const METRICS_DATA_POINTS = MetricsTime.ONE_HOUR * 24;
/** How a job stopped before it ran ends in BullMQ (failed, never retried). */
const STOPPED_BEFORE_RUN = "stopped before it ran";

/** A new job waits delayed until it is the lane's pending job; if its enqueuer dies, it runs after this. */
const HOLD_MS = 30_000;
const CANCELLED_TTL_SECONDS = 86_400;

interface Run {
  lane: string;
  controller: AbortController;
}

/** BullMQ job ids cannot contain ":" nor be integers. */
function bullJobId(jobId: string): string {
  const safe = jobId.replaceAll(":", "_");
  return /^\d+$/.test(safe) ? `job-${safe}` : safe;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves whether `promise` settled within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const done = promise.then(
    () => true,
    () => true,
  );
  return withTimeout(done, ms, () => new Error("timeout")).catch(() => false);
}

/**
 * The queue on Redis (BullMQ), for one server and a fleet of `tackle worker` processes. Dedupe is a
 * `SET NX EX` per delivery id. Per issue or PR, a lease key (`SET PX`, renewed while the job runs)
 * lets one job run; a job taken while its lane is leased goes back to delayed. The lane's pending
 * job is named in a key so newer triggers merge into it (compare-and-set in Lua). `/tackle stop`
 * marks the jobs cancelled and publishes the running one's id so whichever process runs it aborts.
 */
export function createBullmqQueue(options: BullmqQueueOptions): Queue {
  const queueName = options.queueName ?? "tackle-jobs";
  const prefix = options.prefix ?? "tackle";
  const lockDurationMs = options.lockDurationMs ?? 30_000;
  const stalledIntervalMs = options.stalledIntervalMs ?? 30_000;
  const leaseMs = options.leaseMs ?? 2 * (lockDurationMs + stalledIntervalMs);
  const laneRetryMs = options.laneRetryMs ?? 5_000;
  const policy = retryPolicy(options.retry);
  const dedupeTtl = options.dedupeTtlSeconds ?? 259_200;
  const connectWaitMs = options.connectWaitMs ?? 500;
  const operationTimeoutMs = options.operationTimeoutMs ?? 3_000;
  const abortGraceMs = options.abortGraceMs ?? 5_000;
  const log = options.logger.child({ queue: queueName });

  // No offline queue: with Redis down, commands fail at once and the webhook answers 503.
  const client = connectRedis(options.redisUrl, log, "queue", {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: operationTimeoutMs,
  });
  let wasReady = false;
  client.once("ready", () => {
    wasReady = true;
  });
  const bull = new BullQueue<JobData>(queueName, { connection: client, prefix });
  bull.on("error", (error: Error) => log.debug({ err: error.message }, "queue error"));
  const keys = laneKeys(prefix, queueName);
  const jobKey = (id: string): string => `${prefix}:${queueName}:${id}`;
  const scripts = laneScripts(keys, jobKey);
  const runs = new Map<string, Run>();
  /** Errors thrown for a retry, with the delay chosen when the lease was extended over it. */
  const retryDelays = new WeakMap<Error, number>();
  let worker: Worker<JobData> | undefined;
  let workerClient: Redis | undefined;
  let subscriber: Redis | undefined;
  let closing: Promise<void> | undefined;

  const connected = async (what: string): Promise<void> => {
    if (closing) throw redisUnavailable(what, new Error("the queue is closed"));
    if (client.status === "ready") return;
    // Only a queue that has never connected yet waits a little; a lost connection fails at once.
    if (wasReady) throw redisUnavailable(what, new Error(`connection ${client.status}`));
    let onReady = (): void => undefined;
    try {
      await withTimeout(
        new Promise<void>((resolve) => {
          onReady = resolve;
          client.once("ready", onReady);
        }),
        connectWaitMs,
        () => redisUnavailable(what, new Error(`connection ${client.status}`)),
      );
    } finally {
      client.off("ready", onReady);
    }
  };

  /** Runs one Redis-side operation, failing fast with "queue_unavailable". */
  const guarded = async <T>(what: string, operation: () => Promise<T>): Promise<T> => {
    await connected(what);
    try {
      return await withTimeout(operation(), operationTimeoutMs, () => new Error(`timed out after ${operationTimeoutMs} ms`));
    } catch (error) {
      throw error instanceof TackleError ? error : redisUnavailable(what, error);
    }
  };

  const positionOf = (id: string, lane: string): Promise<number> => scripts.position(client, bull.toKey("wait"), lane, id);

  /** Tries to fold `data` into job `id`; "moved"/"gone"/"changed" mean: look at the lane again. */
  const mergeInto = async (id: string, data: JobData, lane: string): Promise<{ merged: JobData } | null> => {
    const read = await client.hget(jobKey(id), "data");
    if (read === null) {
      await scripts.merge(client, lane, id, "", "");
      return null;
    }
    const merged = mergeJobData(jobDataSchema.parse(JSON.parse(read)), data);
    const result = await scripts.merge(client, lane, id, read, JSON.stringify(merged));
    return result === "merged" ? { merged } : null;
  };

  /** Merges into the lane's pending job, or makes this job the pending one. */
  const place = async (data: JobData, lane: string): Promise<EnqueueOutcome> => {
    let own: Job<JobData> | undefined;
    const dropOwn = async (): Promise<void> => {
      await own
        ?.remove()
        .catch((error: unknown) => log.warn({ err: errorMessage(error), jobId: own?.id }, "could not drop an unused job; it runs after its hold"));
    };
    for (let round = 0; round < 50; round += 1) {
      const pendingId = await client.get(keys.pending(lane));
      if (pendingId !== null) {
        const result = await mergeInto(pendingId, data, lane);
        if (!result) continue;
        await dropOwn();
        return { status: "merged", jobId: result.merged.jobId, position: await positionOf(pendingId, lane) };
      }
      own ??= await bull.add(JOB_NAME, data, {
        jobId: bullJobId(data.jobId),
        delay: HOLD_MS,
        attempts: policy.attempts,
        backoff: { type: "tackle" },
        removeOnComplete: { age: 86_400, count: 1_000 },
        removeOnFail: { age: 7 * 86_400 },
      });
      const id = own.id!;
      if ((await client.set(keys.pending(lane), id, "NX")) !== null) {
        await own
          .promote()
          .catch((error: unknown) => log.warn({ err: errorMessage(error), jobId: id }, "could not promote a new job; it starts after its hold"));
        return { status: "queued", jobId: data.jobId, position: await positionOf(id, lane) };
      }
    }
    await dropOwn();
    throw new TackleError("queue_unavailable", `the lane ${lane} kept changing; try again`, { retryable: true });
  };

  const promote = async (id: string): Promise<void> => {
    const job = await bull.getJob(id);
    if (job && (await job.isDelayed())) await job.promote();
  };

  const lanes = createIssueLanes({ keys, scripts, leaseMs, laneRetryMs, promote, log });

  /** Runs the processor while renewing the lane lease; resolves what it threw, if anything. */
  const runLeased = async (
    job: Job<JobData>,
    data: JobData,
    lane: string,
    redis: Redis,
    processor: JobProcessor,
  ): Promise<{ failure: { error: unknown } | null; signal: AbortSignal }> => {
    const id = job.id!;
    const run: Run = { lane, controller: new AbortController() };
    runs.set(id, run);
    const stopRenewing = lanes.hold(redis, lane, id, () => run.controller.abort(stopReason()));
    try {
      await processor(data, run.controller.signal, { attempt: job.attemptsMade + 1, maxAttempts: job.opts.attempts ?? 1 });
      return { failure: null, signal: run.controller.signal };
    } catch (error) {
      return { failure: { error }, signal: run.controller.signal };
    } finally {
      stopRenewing();
      runs.delete(id);
    }
  };

  /** After a failed run: requeue it on shutdown, fail it for good, or keep the lane through the backoff. */
  const afterFailure = async (
    job: Job<JobData>,
    token: string | undefined,
    lane: string,
    redis: Redis,
    failure: unknown,
    signal: AbortSignal,
  ): Promise<never> => {
    const id = job.id!;
    const attempt = job.attemptsMade + 1;
    const jobLog = log.child({ jobId: id, lane, attempt });
    if (signal.aborted && isShutdownReason(signal.reason)) {
      // Back to the front of the wait list, lease kept: the next worker resumes this job first.
      jobLog.warn("job interrupted by shutdown; requeued");
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const error = failure instanceof Error ? failure : new Error(errorMessage(failure));
    const retryable = !signal.aborted && isRetryable(failure);
    if (!retryable || attempt >= (job.opts.attempts ?? 1)) {
      jobLog.error({ err: error.message, retryable }, "job failed");
      await lanes.release(redis, lane, id);
      throw retryable ? error : new UnrecoverableError(error.message);
    }
    const delay = backoffDelay(attempt, policy);
    await lanes.keepThroughBackoff(redis, lane, id, delay);
    retryDelays.set(error, delay);
    jobLog.warn({ err: error.message, delayMs: delay }, "job failed; retrying");
    throw error;
  };

  /** The BullMQ processor: take the lane, run, then release it, retry or requeue. */
  const handle = async (job: Job<JobData>, token: string | undefined, processor: JobProcessor, redis: Redis): Promise<string> => {
    const parsed = jobDataSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid job data: ${parsed.error.message}`);
    const lane = laneKey(parsed.data);
    const data = await lanes.take(job, token, lane, redis);
    if (!data) throw new UnrecoverableError(STOPPED_BEFORE_RUN);
    const { failure, signal } = await runLeased(job, data, lane, redis, processor);
    if (failure) return afterFailure(job, token, lane, redis, failure.error, signal);
    await lanes.release(redis, lane, job.id!);
    return "done";
  };

  const startWorker = (processor: JobProcessor): void => {
    const redis = connectRedis(options.redisUrl, log, "worker", { maxRetriesPerRequest: null });
    workerClient = redis;
    subscriber = connectRedis(options.redisUrl, log, "stop subscriber", { maxRetriesPerRequest: null });
    subscriber.on("message", (_channel: string, id: string) => runs.get(id)?.controller.abort(stopReason()));
    subscriber.subscribe(keys.channel).catch((error: unknown) => log.warn({ err: errorMessage(error) }, "could not subscribe to stop requests"));
    worker = new Worker<JobData>(queueName, (job, token) => handle(job, token, processor, redis), {
      connection: redis,
      prefix,
      concurrency: options.concurrency ?? 2,
      lockDuration: lockDurationMs,
      stalledInterval: stalledIntervalMs,
      // Keeps the completed and failed totals that exportPrometheusMetrics reports (a day of per-minute points).
      metrics: { maxDataPoints: METRICS_DATA_POINTS },
      settings: {
        backoffStrategy: (attemptsMade, _type, error) => (error && retryDelays.get(error)) ?? backoffDelay(attemptsMade, policy),
      },
    });
    worker.on("error", (error: Error) => log.warn({ err: error.message }, "worker error"));
    worker.on("stalled", (jobId: string) => log.warn({ jobId }, "job stalled (its worker stopped); it runs again"));
    // A job failed by the stalled checker (its workers kept dying) never reached its own release.
    worker.on("failed", (job: Job<JobData> | undefined) => {
      const dead = lanes.afterFailed(job, redis);
      if (dead && options.onDead) {
        options.onDead(dead.data, dead.reason).catch((error: unknown) => {
          log.warn({ err: errorMessage(error) }, "could not report a dead job");
        });
      }
    });
  };

  const shutdown = async (drainMs: number): Promise<void> => {
    if (worker) {
      // Idle, there is nothing to wait for: forced, BullMQ closes its blocking connection at once.
      const closed = worker.close(runs.size === 0);
      if (runs.size === 0) {
        // Nothing running, nothing to drain: a close that hangs (Redis unreachable) is cut short.
        const idleBound = Math.min(drainMs, IDLE_CLOSE_MS);
        if (!(await settledWithin(closed, idleBound))) log.warn({ waitedMs: idleBound }, "the queue did not close (is Redis reachable?); disconnecting");
      } else if (!(await settledWithin(closed, drainMs))) {
        log.warn({ running: runs.size }, "drain bound reached; aborting running jobs");
        for (const run of runs.values()) run.controller.abort(shutdownReason());
        if (!(await settledWithin(closed, abortGraceMs))) log.error("jobs still running after the abort grace; leaving them");
      }
    }
    if (!(await settledWithin(bull.close(), 2_000))) await settledWithin(bull.disconnect(), 1_000);
    for (const redis of [client, workerClient, subscriber]) redis?.disconnect();
  };

  return {
    kind: "bullmq",

    async enqueue(input: JobData): Promise<EnqueueOutcome> {
      const data = jobDataSchema.parse(input);
      const lane = laneKey(data);
      return guarded("enqueue the job", async () => {
        const dedupe = keys.dedupe(data.deliveryId);
        if ((await client.set(dedupe, data.jobId, "EX", dedupeTtl, "NX")) === null) {
          return { status: "duplicate", jobId: (await client.get(dedupe)) ?? data.jobId };
        }
        try {
          const outcome = await place(data, lane);
          if (outcome.status === "merged") await client.set(dedupe, outcome.jobId, "EX", dedupeTtl);
          return outcome;
        } catch (error) {
          // Forget the delivery, so GitHub's redelivery after our 503 is not taken for a duplicate.
          await client.del(dedupe).catch(() => undefined);
          throw error;
        }
      });
    },

    async start(processor: JobProcessor): Promise<void> {
      if (!options.consume) {
        log.info("enqueue-only queue: jobs run in `tackle worker` processes");
        return;
      }
      if (!worker && !closing) startWorker(processor);
    },

    async cancel(repo, number): Promise<boolean> {
      const lane = laneKey({ repo, number });
      return guarded("stop the job", async () => {
        const { pending, holder } = await scripts.cancel(client, lane, CANCELLED_TTL_SECONDS);
        if (holder) {
          runs.get(holder)?.controller.abort(stopReason());
          await client.publish(keys.channel, holder);
          // A holder between retries would otherwise keep the lane until its backoff ends.
          await promote(holder).catch(() => undefined);
        }
        // Never removed here: a worker may hold the job this very moment, and then its claim would end
        // it instead, as "completed". Woken, it ends the same way every time: its claim sees the marker.
        if (pending) await promote(pending).catch(() => undefined);
        return pending !== null || holder !== null;
      });
    },

    async ready(): Promise<boolean> {
      try {
        await connected("check readiness");
        return (await withTimeout(client.ping(), 1_000, () => new Error("ping timed out"))) === "PONG";
      } catch {
        return false;
      }
    },

    async counts(): Promise<QueueCounts> {
      const counts = await guarded("count the jobs", () => bull.getJobCounts("waiting", "prioritized", "active", "delayed"));
      return { waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), active: counts.active ?? 0, delayed: counts.delayed ?? 0 };
    },

    exportPrometheusMetrics: () => guarded("export the queue's metrics", () => bull.exportPrometheusMetrics()),

    async idle(): Promise<void> {
      for (;;) {
        const counts = await bull.getJobCounts("waiting", "active", "delayed", "prioritized");
        if (Object.values(counts).every((count) => count === 0)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },

    close(drainMs = 30_000): Promise<void> {
      closing ??= shutdown(drainMs);
      return closing;
    },
  };
}
