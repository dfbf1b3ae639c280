export { createEmbeddedQueue } from "./embedded-queue.js";
export { createBullmqQueue, type BullmqQueueOptions } from "./bullmq-queue.js";
export { createQueue } from "./create-queue.js";
export { runQueueWorker } from "./run-queue-worker.js";
export type { JobProcessor, JobRunInfo, Queue } from "./queue.js";
export { jobDataSchema, laneKey, type JobData } from "./job-data.js";

export { isShutdownReason, type RetryPolicy } from "./retry-policy.js";
export type { Approvals } from "./approvals.js";
export { createApprovals } from "./create-approvals.js";
export { createEmbeddedApprovals } from "./embedded-approvals.js";
export { createRedisApprovals } from "./redis-approvals.js";
export { createAckClaims, createEmbeddedAckClaims, createRedisAckClaims, type AckClaims } from "./ack-claims.js";
export { createMemoryStore } from "./create-memory-store.js";
export type { MemoryStore } from "./memory-store.js";
export { createDailyBudget } from "./create-daily-budget.js";
export { createEmbeddedDailyBudget } from "./embedded-daily-budget.js";
export type { BudgetCaps, BudgetReservation, DailyBudget } from "./daily-budget.js";
