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
export type { ApprovalOutcome, ApprovalReply, ApprovalRequest, Approvals, WaitOptions } from "./approvals.js";
export { createApprovals, type CreateApprovalsOptions } from "./create-approvals.js";
export { createEmbeddedApprovals } from "./embedded-approvals.js";
export { createRedisApprovals, type RedisApprovalsOptions } from "./redis-approvals.js";
export { createAckClaims, createEmbeddedAckClaims, createRedisAckClaims, type AckClaims } from "./ack-claims.js";
