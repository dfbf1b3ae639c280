export { createEmbeddedQueue, type EmbeddedQueueOptions } from "./embedded-queue.js";
export { createBullmqQueue, type BullmqQueueOptions } from "./bullmq-queue.js";
export { createQueue, type CreateQueueOptions } from "./create-queue.js";
export { runQueueWorker, type RunQueueWorkerOptions } from "./run-queue-worker.js";
export type { EnqueueOutcome, JobProcessor, JobRunInfo, Queue } from "./queue.js";
export {
  jobDataSchema,
  issueBranchName,
  laneKey,
  type JobData,
  type MergedTrigger,
  type TriggerKind,
} from "./job-data.js";
export { mergeJobData } from "./merge-job-data.js";
export {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isRetryable,
  isShutdownReason,
  type RetryPolicy,
} from "./retry-policy.js";
