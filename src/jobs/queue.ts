import type { JobData } from "./job-data.js";

/**
 * What `enqueue` did with a trigger. `position` is 1 when the job runs next (or already runs) for its
 * issue or PR, plus one for each job ahead of it: its lane's running job and jobs queued before it.
 */
export type EnqueueOutcome =
  | { status: "queued"; jobId: string; position: number }
  /** Folded into the lane's pending job `jobId`: its instructions were appended to that job's. */
  | { status: "merged"; jobId: string; position: number }
  /** The same delivery was seen before; `jobId` is the job it went to. */
  | { status: "duplicate"; jobId: string };

export interface JobRunInfo {
  /** 1 on the first run; a rerun after a stalled (killed) worker keeps the number. */
  attempt: number;
  maxAttempts: number;
}

/** Jobs by state, across every process of the queue (all workers, for BullMQ). */
export interface QueueCounts {
  /** Due to run, waiting for a free worker slot. */
  waiting: number;
  /** Running now. */
  active: number;
  /** Not yet due: waiting for their issue's running job to end, or for a retry's backoff. */
  delayed: number;
}

/**
 * What a queue calls to run a job. The signal aborts on `/tackle stop` (reason: a non-retryable
 * TackleError "aborted") and on shutdown past the drain bound (a retryable one; BullMQ requeues the job).
 * Throw a TackleError with `retryable: false` to fail at once; anything else is retried with backoff.
 */
export type JobProcessor = (data: JobData, signal: AbortSignal, info?: JobRunInfo) => Promise<void>;

/**
 * One interface, two backends: in-process (embedded) and BullMQ on Redis. Deduplication is by
 * delivery id; per issue or PR at most one job runs and one waits, and newer triggers merge into the
 * waiting one.
 */
export interface Queue {
  readonly kind: "embedded" | "bullmq";
  /** Fails fast with TackleError "queue_unavailable" when the backend cannot take the job (answer 503). */
  enqueue(data: JobData): Promise<EnqueueOutcome>;
  /** Starts consuming with `processor`; no-op for a queue that only enqueues. */
  start(processor: JobProcessor): Promise<void>;
  /**
   * Aborts the running job of this issue or PR (through its AbortSignal, in whichever process runs it)
   * and drops its pending one; resolves whether there was anything to stop.
   */
  cancel(repo: { owner: string; name: string }, number: number): Promise<boolean>;
  /** Whether the backend can take jobs now (Redis answers PING); for `/readyz`. */
  ready(): Promise<boolean>;
  /** Resolves when nothing is queued, waiting for a retry or running (tests, drain). */
  idle(): Promise<void>;
  /** The jobs by state now, for `/metrics` (read at each scrape). */
  counts(): Promise<QueueCounts>;
  /**
   * BullMQ's own Prometheus text for this queue (`bullmq_job_count` by state, completed and failed
   * totals), for dashboards built on it. Absent for the embedded queue.
   */
  exportPrometheusMetrics?(): Promise<string>;
  /** Stops taking jobs; waits up to `drainMs` for running ones, then aborts them. */
  close(drainMs?: number): Promise<void>;
}
