import type { JobData } from "./job-data.js";

export type EnqueueOutcome =
  | { status: "queued"; jobId: string; position: number }
  | { status: "duplicate"; jobId: string };

/** What a queue calls to run a job. The signal aborts on `/tackle stop` and on shutdown. */
export type JobProcessor = (data: JobData, signal: AbortSignal) => Promise<void>;

/**
 * One interface, two backends: in-process (embedded) and BullMQ on Redis. Deduplication is by
 * delivery id; per issue or PR at most one job runs at a time.
 */
export interface Queue {
  readonly kind: "embedded" | "bullmq";
  enqueue(data: JobData): Promise<EnqueueOutcome>;
  /** Starts consuming with `processor`; no-op for a queue that only enqueues. */
  start(processor: JobProcessor): Promise<void>;
  /**
   * Aborts the running job of this issue or PR (through its AbortSignal, in whichever process runs it)
   * and drops its pending one; resolves whether there was anything to stop.
   */
  cancel(repo: { owner: string; name: string }, number: number): Promise<boolean>;
  /** Resolves when nothing is queued or running (tests, drain). */
  idle(): Promise<void>;
  /** Stops taking jobs; waits up to `drainMs` for running ones, then aborts them. */
  close(drainMs?: number): Promise<void>;
}
