import { z } from "zod";

/*
 * Only the parts of the webhook payloads that Tackle reads; everything else is dropped on parse.
 * Shapes follow @octokit/webhooks-types.
 */

const positiveInt = z.number().int().positive();

const userSchema = z.object({
  login: z.string().min(1),
  type: z.string().optional(),
});

/** Checked first, for every event: enough to ignore the bot's own events before anything else. */
export const envelopeSchema = z.object({
  action: z.string().min(1),
  sender: userSchema,
  repository: z.object({
    name: z.string().min(1),
    owner: z.object({ login: z.string().min(1) }),
  }),
  installation: z.object({ id: positiveInt }).nullish(),
});

const issueSchema = z.object({
  number: positiveInt,
  /** Present (an object of URLs) when the issue is a pull request. */
  pull_request: z.object({}).nullish(),
});

const pullRequestSchema = z.object({
  number: positiveInt,
  head: z.object({
    ref: z.string().min(1),
    sha: z.string().min(1),
    repo: z.object({ full_name: z.string().min(1) }).nullable(),
  }),
  base: z.object({ ref: z.string().min(1) }),
});

export const issuesAssignedSchema = z.object({
  issue: issueSchema,
  assignee: userSchema.nullish(),
});

export const issuesLabeledSchema = z.object({
  issue: issueSchema,
  label: z.object({ name: z.string() }).nullish(),
});

export const issueCommentCreatedSchema = z.object({
  issue: issueSchema,
  comment: z.object({
    id: positiveInt,
    body: z.string(),
    user: userSchema,
  }),
});

export const pullRequestReviewSubmittedSchema = z.object({
  review: z.object({
    id: positiveInt,
    body: z.string().nullable(),
    state: z.string(),
    user: userSchema.nullable(),
  }),
  pull_request: pullRequestSchema,
});

export const pullRequestReviewCommentCreatedSchema = z.object({
  comment: z.object({
    id: positiveInt,
    body: z.string(),
    user: userSchema,
    path: z.string(),
    line: z.number().int().nullish(),
  }),
  pull_request: pullRequestSchema,
});

export type WebhookUser = z.infer<typeof userSchema>;
export type WebhookPullRequest = z.infer<typeof pullRequestSchema>;
