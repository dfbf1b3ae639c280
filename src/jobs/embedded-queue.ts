import { TackleError, errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { jobDataSchema, laneKey, type JobData } from "./job-data.js";
import { mergeJobData } from "./merge-job-data.js";
import type { EnqueueOutcome, JobProcessor, Queue, QueueCounts } from "./queue.js";
import { backoffDelay, isRetryable, retryPolicy, shutdownReason, stopReason, type RetryPolicy } from "./retry-policy.js";

export interface EmbeddedQueueOptions {
  /** Jobs that may run at once across all issues. @defaultValue 2 */
  concurrency?: number;
  /** Delivery ids remembered for deduplication. @defaultValue 10_000 */
  dedupeWindow?: number;
  /** Attempts and backoff for failed jobs. @defaultValue {@link DEFAULT_RETRY_POLICY} */
  retry?: Partial<RetryPolicy>;
  /** How long jobs aborted at the end of `close` get to return. @defaultValue 5_000 */
  abortGraceMs?: number;
  logger: Logger;
}

interface Entry {
  data: JobData;
  lane: string;
  controller: AbortController;
  /** Runs started so far. */
  attempt: number;
  /** pending: waits its turn; backoff: failed, retry timer set; ready: retry due. */
  state: "pending" | "running" | "backoff" | "ready";
  timer?: NodeJS.Timeout;
}

/** Per issue or PR: the job that owns the lane (running, or between retries) and the one waiting. */
interface Lane {
  current?: Entry;
  pending?: Entry;
}

/**
 * The in-process queue for a single machine (no REDIS_URL), with the same contract as the BullMQ
 * one: dedupe by delivery id; per issue or PR one job running (a job between retries keeps its lane)
 * and one pending, newer triggers merged into it; FIFO across lanes.
 */
export function createEmbeddedQueue(options: EmbeddedQueueOptions): Queue {
  const concurrency = options.concurrency ?? 2;
  const dedupeWindow = options.dedupeWindow ?? 10_000;
  const abortGraceMs = options.abortGraceMs ?? 5_000;
  const policy = retryPolicy(options.retry);
  const log = options.logger.child({ queue: "embedded" });
  /** delivery id -> the job it went to */
  const seen = new Map<string, string>();
  const lanes = new Map<string, Lane>();
  const order: Entry[] = [];
  let running = 0;
  const idleWaiters: Array<() => void> = [];
  let processor: JobProcessor | undefined;
  let closing: Promise<void> | undefined;

  const remember = (deliveryId: string, jobId: string): void => {
    seen.set(deliveryId, jobId);
    if (seen.size > dedupeWindow) {
      const oldest = seen.keys().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  };

  const isIdle = (): boolean => order.length === 0 && lanes.size === 0;

  const settle = (): void => {
    if (isIdle()) for (const resolve of idleWaiters.splice(0)) resolve();
  };

  const tidy = (key: string): void => {
    const lane = lanes.get(key);
    if (lane && !lane.current && !lane.pending) lanes.delete(key);
  };

  const positionOf = (entry: Entry): number => {
    if (entry.state !== "pending") return 1;
    return 1 + (lanes.get(entry.lane)?.current ? 1 : 0) + order.indexOf(entry);
  };

  const start = (entry: Entry): void => {
    entry.state = "running";
    entry.attempt += 1;
    running += 1;
    void run(entry);
  };

  const pump = (): void => {
    if (!processor || closing) return;
    for (const lane of lanes.values()) {
      if (running >= concurrency) return;
      if (lane.current?.state === "ready") start(lane.current);
    }
    for (let i = 0; i < order.length && running < concurrency; ) {
      const entry = order[i]!;
      const lane = lanes.get(entry.lane)!;
      if (lane.current) {
        i += 1;
        continue;
      }
      order.splice(i, 1);
      delete lane.pending;
      lane.current = entry;
      start(entry);
    }
  };

  const scheduleRetry = (entry: Entry): void => {
    entry.state = "backoff";
    entry.timer = setTimeout(
      () => {
        delete entry.timer;
        entry.state = "ready";
        pump();
      },
      backoffDelay(entry.attempt, policy),
    );
  };

  const run = async (entry: Entry): Promise<void> => {
    const jobLog = log.child({ jobId: entry.data.jobId, lane: entry.lane, attempt: entry.attempt });
    let retry = false;
    try {
      await processor!(entry.data, entry.controller.signal, { attempt: entry.attempt, maxAttempts: policy.attempts });
    } catch (error) {
      retry = !entry.controller.signal.aborted && !closing && isRetryable(error) && entry.attempt < policy.attempts;
      // processJob reports its own failures on the issue; this is the last line of defence.
      jobLog.error({ err: errorMessage(error), retry }, "job failed");
    } finally {
      running -= 1;
      const lane = lanes.get(entry.lane);
      if (retry && lane?.current === entry) scheduleRetry(entry);
      else if (lane?.current === entry) {
        delete lane.current;
        tidy(entry.lane);
      }
      pump();
      settle();
    }
  };

  /** Resolves true once idle, false when `ms` passed first. */
  const waitIdle = (ms: number): Promise<boolean> => {
    if (isIdle()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  };

  /** Drops everything that is not running: jobs in a lane that waits, and retries not yet due. */
  const dropQueued = (): number => {
    let dropped = order.splice(0).length;
    for (const [key, lane] of lanes) {
      delete lane.pending;
      if (lane.current && lane.current.state !== "running") {
        clearTimeout(lane.current.timer);
        delete lane.current;
        dropped += 1;
      }
      tidy(key);
    }
    return dropped;
  };

  return {
    kind: "embedded",

    async enqueue(input: JobData): Promise<EnqueueOutcome> {
      if (closing) throw new TackleError("queue_unavailable", "the queue is closed", { retryable: true });
      const data = jobDataSchema.parse(input);
      const earlier = seen.get(data.deliveryId);
      if (earlier !== undefined) return { status: "duplicate", jobId: earlier };
      const key = laneKey(data);
      const lane = lanes.get(key) ?? {};
      lanes.set(key, lane);
      if (lane.pending) {
        lane.pending.data = mergeJobData(lane.pending.data, data);
        remember(data.deliveryId, lane.pending.data.jobId);
        return { status: "merged", jobId: lane.pending.data.jobId, position: positionOf(lane.pending) };
      }
      remember(data.deliveryId, data.jobId);
      const entry: Entry = { data, lane: key, controller: new AbortController(), attempt: 0, state: "pending" };
      lane.pending = entry;
      order.push(entry);
      pump();
      return { status: "queued", jobId: data.jobId, position: positionOf(entry) };
    },

    async start(jobProcessor: JobProcessor): Promise<void> {
      processor = jobProcessor;
      pump();
    },

    async cancel(repo, number): Promise<boolean> {
      const key = laneKey({ repo, number });
      const lane = lanes.get(key);
      if (!lane) return false;
      if (lane.pending) {
        order.splice(order.indexOf(lane.pending), 1);
        delete lane.pending;
      }
      const current = lane.current;
      if (current?.state === "running") current.controller.abort(stopReason());
      else if (current) {
        clearTimeout(current.timer);
        delete lane.current;
      }
      tidy(key);
      settle();
      return true;
    },

    async ready(): Promise<boolean> {
      return closing === undefined;
    },

    async counts(): Promise<QueueCounts> {
      const counts: QueueCounts = { waiting: 0, active: running, delayed: 0 };
      // A pending job behind its issue's running one is not due yet, as BullMQ holds it delayed.
      for (const entry of order) counts[lanes.get(entry.lane)?.current ? "delayed" : "waiting"] += 1;
      for (const lane of lanes.values()) {
        if (lane.current?.state === "ready") counts.waiting += 1;
        if (lane.current?.state === "backoff") counts.delayed += 1;
      }
      return counts;
    },

    async idle(): Promise<void> {
      await new Promise<void>((resolve) => {
        if (isIdle()) resolve();
        else idleWaiters.push(resolve);
      });
    },

    close(drainMs = 30_000): Promise<void> {
      closing ??= (async () => {
        const dropped = dropQueued();
        if (dropped > 0) log.warn({ dropped }, "queue closed; jobs not yet started are dropped");
        settle();
        if (await waitIdle(drainMs)) return;
        for (const lane of lanes.values()) lane.current?.controller.abort(shutdownReason());
        if (!(await waitIdle(abortGraceMs))) log.error("jobs still running after the abort grace; leaving them");
      })();
      return closing;
    },
  };
}
