import { createQueue, runQueueWorker } from "../jobs/index.js";
import { createLogger } from "../logging/logger.js";
import { processJob, reportDeadJob } from "../worker/process-job.js";
import { createJobRuntime } from "./runtime.js";

/** `tackle worker`: consume the BullMQ queue until SIGTERM, then drain within a bound. */
export async function startWorker(
  processEnv: NodeJS.ProcessEnv,
  options: { concurrency: number; drainMs: number; lockMs: number },
): Promise<void> {
  const logger = createLogger(processEnv);
  const { env, deps } = await createJobRuntime(processEnv, { mode: "worker", logger });
  const queue = createQueue({
    redisUrl: env.redisUrl,
    consume: true,
    concurrency: options.concurrency,
    lockDurationMs: options.lockMs,
    stalledIntervalMs: Math.max(500, Math.floor(options.lockMs / 2)),
    onDead: (data, reason) => reportDeadJob(data, deps, reason),
    logger,
  });
  console.log(`tackle worker consuming ${queue.kind} jobs (concurrency ${options.concurrency})`);
  await runQueueWorker({
    queue,
    processor: async (data, signal, attempt) => {
      await processJob(data, deps, signal, attempt);
    },
    drainMs: options.drainMs,
    logger,
  });
  // After the drain: a job aborted past it has already given up its wait.
  await deps.approvals?.close();
  await deps.claims?.close();
}
