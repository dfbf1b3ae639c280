import { z } from "zod";

const repoSchema = z.object({
  owner: z.string().min(1),
  name: z.string().min(1),
});

export const triggerKindSchema = z.enum([
  "issue_assigned",
  "issue_labeled",
  "issue_comment",
  "pr_comment",
  "pr_review",
  "pr_review_comment",
  "retry",
  "local",
]);
export type TriggerKind = z.infer<typeof triggerKindSchema>;

/** The trigger a job was enqueued for. */
const jobTriggerSchema = z.object({
  kind: triggerKindSchema,
  actor: z.string().min(1),
  /** The comment that triggered the job, for the 👀 reaction. */
  commentId: z.number().int().positive().optional(),
  /** Which reaction endpoint the comment id belongs to. */
  commentKind: z.enum(["issue", "review_comment", "review"]).optional(),
  /** Text that came with the trigger (comment body after the mention), as data. */
  instructions: z.string().max(65_536).optional(),
});

/** A later trigger folded into a pending job (its text is already in `trigger.instructions`). */
export const mergedTriggerSchema = jobTriggerSchema.omit({ instructions: true }).extend({
  deliveryId: z.string().min(1),
});
export type MergedTrigger = z.infer<typeof mergedTriggerSchema>;

/** What a worker needs to run one job; everything else it fetches. Validated on enqueue and on dequeue. */
export const jobDataSchema = z.object({
  /** Stable per issue or PR and trigger delivery. */
  jobId: z.string().min(1),
  /** X-GitHub-Delivery of the triggering webhook (dedupe key); synthetic for CLI and Action runs. */
  deliveryId: z.string().min(1),
  installationId: z.number().int().positive().optional(),
  repo: repoSchema,
  /** Issue or pull request number. */
  number: z.number().int().positive(),
  isPullRequest: z.boolean().default(false),
  trigger: jobTriggerSchema,
  /** Triggers merged into this job while it waited, oldest first (each also wants its 👀). */
  mergedTriggers: z.array(mergedTriggerSchema).optional(),
  /** Set on reruns, so the same tracking comment is edited rather than a new one posted. */
  trackingCommentId: z.number().int().positive().optional(),
  enqueuedAt: z.string().datetime(),
});

export type JobData = z.infer<typeof jobDataSchema>;

/** The branch a job on an issue works on: stable, so reruns are idempotent. */
export function issueBranchName(issueNumber: number): string {
  return `tackle/issue-${issueNumber}`;
}

/** Per issue or PR: the key of its serial lane. */
export function laneKey(data: Pick<JobData, "repo" | "number">): string {
  return `${data.repo.owner}/${data.repo.name}#${data.number}`;
}
