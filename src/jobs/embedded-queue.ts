import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { jobDataSchema, laneKey, type JobData } from "./job-data.js";
import type { EnqueueOutcome, JobProcessor, Queue } from "./queue.js";

export interface EmbeddedQueueOptions {
  /** Jobs that may run at once across all issues. @defaultValue 2 */
  concurrency?: number;
  /** Delivery ids remembered for deduplication. @defaultValue 10_000 */
  dedupeWindow?: number;
  logger: Logger;
}

interface Entry {
  data: JobData;
  controller: AbortController;
}

/**
 * The in-process queue for a single machine (no REDIS_URL): dedupe by delivery id, one running job
 * per issue or PR, FIFO otherwise.
 */
export function createEmbeddedQueue(options: EmbeddedQueueOptions): Queue {
  const concurrency = options.concurrency ?? 2;
  const dedupeWindow = options.dedupeWindow ?? 10_000;
  const seen = new Set<string>();
  const pending: Entry[] = [];
  const running = new Map<string, Entry>();
  const idleWaiters: Array<() => void> = [];
  let processor: JobProcessor | undefined;
  let closed = false;

  const remember = (deliveryId: string): void => {
    seen.add(deliveryId);
    if (seen.size > dedupeWindow) {
      const oldest = seen.values().next().value;
      if (oldest !== undefined) seen.delete(oldest);
    }
  };

  const notifyIdle = (): void => {
    if (pending.length > 0 || running.size > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  };

  const pump = (): void => {
    if (!processor || closed) return;
    for (let i = 0; i < pending.length && running.size < concurrency; ) {
      const entry = pending[i]!;
      const lane = laneKey(entry.data);
      if (running.has(lane)) {
        i += 1;
        continue;
      }
      pending.splice(i, 1);
      running.set(lane, entry);
      void run(entry, lane);
    }
  };

  const run = async (entry: Entry, lane: string): Promise<void> => {
    const log = options.logger.child({ jobId: entry.data.jobId, lane });
    try {
      await processor!(entry.data, entry.controller.signal);
    } catch (error) {
      // processJob reports its own failures on the issue; this is the last line of defence.
      log.error({ err: error }, "job failed");
    } finally {
      running.delete(lane);
      pump();
      notifyIdle();
    }
  };

  return {
    kind: "embedded",

    async enqueue(input: JobData): Promise<EnqueueOutcome> {
      if (closed) throw new TackleError("workspace", "the queue is closed", { retryable: true });
      const data = jobDataSchema.parse(input);
      if (seen.has(data.deliveryId)) return { status: "duplicate", jobId: data.jobId };
      remember(data.deliveryId);
      pending.push({ data, controller: new AbortController() });
      const position = running.size + pending.length;
      pump();
      return { status: "queued", jobId: data.jobId, position };
    },

    async start(jobProcessor: JobProcessor): Promise<void> {
      processor = jobProcessor;
      pump();
    },

    async cancel(repo, number): Promise<boolean> {
      const lane = laneKey({ repo, number });
      let found = false;
      for (let i = pending.length - 1; i >= 0; i -= 1) {
        if (laneKey(pending[i]!.data) === lane) {
          pending.splice(i, 1);
          found = true;
        }
      }
      const entry = running.get(lane);
      if (entry) {
        entry.controller.abort(new TackleError("aborted", "stopped on request"));
        found = true;
      }
      notifyIdle();
      return found;
    },

    idle(): Promise<void> {
      if (pending.length === 0 && running.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },

    async close(drainMs = 30_000): Promise<void> {
      closed = true;
      pending.length = 0;
      if (running.size === 0) return;
      const drained = new Promise<void>((resolve) => idleWaiters.push(resolve));
      const timer = setTimeout(() => {
        for (const entry of running.values()) entry.controller.abort(new TackleError("aborted", "shutting down"));
      }, drainMs);
      await drained;
      clearTimeout(timer);
    },
  };
}
