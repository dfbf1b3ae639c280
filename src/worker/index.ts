// What leaves the worker layer: the job processor and its ports, local runs, and what the webhook side shares with jobs.
export { processJob } from "./process-job.js";
export { reportDeadJob } from "./report-dead-job.js";
export { reactionTarget } from "./job-context.js";
export type { JobOutcome, ProcessJobDeps } from "./job-deps.js";
export type { JobMetrics } from "./job-metrics.js";
export { runLocal } from "./run-local.js";
export { renderTrackingComment } from "./tracking-comment.js";
