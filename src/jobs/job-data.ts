import { z } from "zod";
import type { JobRecord } from "./job-store.js";

const repoSchema = z.object({
  owner: z.string().min(1),
  name: z.string().min(1),
});

export const triggerKindSchema = z.enum(["issue_assigned", "issue_labeled", "issue_comment", "pr_comment", "pr_review", "pr_review_comment", "retry", "local"]);

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

/** The frozen thread's whole size, as JSON: it travels in the job's data (and Redis). */
export const THREAD_MAX_CHARS = 200_000;
/** Comments and review comments kept in a frozen thread: the newest ones. */
export const THREAD_MAX_COMMENTS = 30;

const threadCommentSchema = z.object({
  id: z.number().int().positive(),
  author: z.string().min(1),
  /** "User", "Bot" or "Organization", as GitHub says. */
  authorType: z.string(),
  /** Whether the author had write access (or was an allow-listed bot) when the thread was frozen. */
  trusted: z.boolean(),
  body: z.string(),
  createdAt: z.string(),
});

const threadReviewCommentSchema = z.object({
  author: z.string().min(1),
  trusted: z.boolean(),
  path: z.string(),
  line: z.number().int().nullable(),
  body: z.string(),
});

/**
 * The issue or PR as it was when the trigger arrived, every text sanitized: what the model reads of
 * the thread. Comments posted later reach the model only from users with write access.
 */
export const issueThreadSchema = z
  .object({
    frozenAt: z.string().datetime(),
    /** The newest comment id at freeze time (0 without comments): later comments have higher ids. */
    lastCommentId: z.number().int().nonnegative(),
    /** The same for review comments, a sequence of their own. */
    lastReviewCommentId: z.number().int().nonnegative().optional(),
    title: z.string(),
    body: z.string(),
    state: z.string(),
    labels: z.array(z.string()).max(100),
    isPullRequest: z.boolean(),
    comments: z.array(threadCommentSchema).max(THREAD_MAX_COMMENTS),
    /** Older comments left out of `comments`. */
    omittedComments: z.number().int().nonnegative(),
    reviewComments: z.array(threadReviewCommentSchema).max(THREAD_MAX_COMMENTS).optional(),
  })
  .refine((thread) => JSON.stringify(thread).length <= THREAD_MAX_CHARS, {
    message: `the frozen thread is larger than ${THREAD_MAX_CHARS} characters`,
  });
export type IssueThread = z.infer<typeof issueThreadSchema>;

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
  /** The thread frozen at trigger time; absent on jobs from older servers and on retries (the worker then reads it live). */
  thread: issueThreadSchema.optional(),
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

/** What a job's record says of its trigger, from its data: the same whether the server queued it or a worker started it. */
export function triggerFields(data: JobData): Pick<JobRecord, "jobId" | "repo" | "number" | "isPullRequest" | "trigger" | "actor" | "enqueuedAt"> {
  return {
    jobId: data.jobId,
    repo: `${data.repo.owner}/${data.repo.name}`,
    number: data.number,
    isPullRequest: data.isPullRequest,
    trigger: data.trigger.kind,
    actor: data.trigger.actor,
    enqueuedAt: data.enqueuedAt,
  };
}
