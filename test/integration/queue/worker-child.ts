/**
 * A `tackle worker` stand-in for the fault tests: consumes the queue named in its environment and
 * hangs in every job until aborted, printing one JSON line per event on stdout.
 */
import { createBullmqQueue, runQueueWorker } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";

const env = process.env;
const emit = (event: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(event)}\n`);
};

const queue = createBullmqQueue({
  redisUrl: env.REDIS_URL!,
  queueName: env.QUEUE_NAME!,
  prefix: env.QUEUE_PREFIX!,
  consume: true,
  concurrency: 1,
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
  logger: silentLogger,
});

await runQueueWorker({
  queue,
  logger: silentLogger,
  drainMs: Number(env.DRAIN_MS ?? 30_000),
  processor: async (data, signal, info) => {
    emit({ event: "started", data, info });
    await new Promise<never>((_, reject) => {
      signal.addEventListener("abort", () => {
        const reason = signal.reason as { message?: string; retryable?: boolean };
        emit({ event: "aborted", message: reason.message, retryable: reason.retryable });
        reject(signal.reason);
      });
    });
  },
});
emit({ event: "closed" });
process.exit(0);
