import type { z } from "zod";
import { parseCommand } from "./parse-command.js";
import {
  envelopeSchema,
  issueCommentCreatedSchema,
  issuesAssignedSchema,
  issuesLabeledSchema,
  pullRequestReviewCommentCreatedSchema,
  pullRequestReviewSubmittedSchema,
  type WebhookPullRequest,
  type WebhookUser,
} from "./payload-schemas.js";
import type { Actor, CommandTrigger, IgnoredEvent, ParseResult, PullRequestInfo, Trigger } from "./trigger.js";

export interface ParseTriggerOptions {
  /** X-GitHub-Delivery of the webhook; synthetic for Action and CLI runs. */
  deliveryId: string;
  /** The bot user, e.g. `tackle[bot]`: its own events never trigger. */
  botLogin: string;
  /** The mention and command name, e.g. `tackle` for `@tackle` and `/tackle`. */
  botName: string;
  /** The label whose addition triggers a job. */
  triggerLabel: string;
}

type Envelope = z.infer<typeof envelopeSchema>;

interface Context {
  eventName: string;
  envelope: Envelope;
  payload: unknown;
  options: ParseTriggerOptions;
}

type Handler = (context: Context) => ParseResult;

/** Which action of each event may trigger; every other event and action is ignored. */
const handlers = new Map<string, Map<string, Handler>>([
  [
    "issues",
    new Map([
      ["assigned", parseIssueAssigned],
      ["labeled", parseIssueLabeled],
    ]),
  ],
  ["issue_comment", new Map([["created", parseIssueComment]])],
  ["pull_request_review", new Map([["submitted", parsePullRequestReview]])],
  ["pull_request_review_comment", new Map([["created", parsePullRequestReviewComment]])],
]);

/**
 * Parses a webhook payload, once, into a trigger; nothing downstream reads the raw payload. Never
 * throws: a payload missing a field Tackle needs is `invalid`, anything that should not start
 * work (other actions, no mention, the bot's own events) is `ignored`. Permission is the gate's job.
 */
export function parseTrigger(eventName: string, payload: unknown, options: ParseTriggerOptions): ParseResult {
  const actions = handlers.get(eventName);
  if (actions === undefined) return ignored(`\`${eventName}\` events do not trigger`);
  if (typeof payload !== "object" || payload === null) {
    return invalid(`${eventName} payload is not an object`);
  }
  const envelope = envelopeSchema.safeParse(payload);
  if (!envelope.success) return invalid(`${eventName} payload: ${describeIssues(envelope.error)}`);
  if (sameLogin(envelope.data.sender.login, options.botLogin)) return ignored("the bot's own event");

  const { action } = envelope.data;
  const handler = actions.get(action);
  if (handler === undefined) return ignored(`\`${eventName}.${action}\` does not trigger`);
  return handler({ eventName, envelope: envelope.data, payload, options });
}

function parseIssueAssigned(context: Context): ParseResult {
  const parsed = parsePart(context, issuesAssignedSchema);
  if (!parsed.ok) return parsed.result;
  const { issue, assignee } = parsed.data;
  if (assignee === null || assignee === undefined || !sameLogin(assignee.login, context.options.botLogin)) {
    return ignored("assigned to someone other than the bot");
  }
  const isPullRequest = isSet(issue.pull_request);
  return {
    kind: "issue_assigned",
    ...base(context, issue.number, toActor(context.envelope.sender), isPullRequest ? { headKnown: false } : null),
  };
}

function parseIssueLabeled(context: Context): ParseResult {
  const parsed = parsePart(context, issuesLabeledSchema);
  if (!parsed.ok) return parsed.result;
  const { issue, label } = parsed.data;
  if (label === null || label === undefined || !sameLabel(label.name, context.options.triggerLabel)) {
    return ignored(`the label is not the trigger label \`${context.options.triggerLabel}\``, settingsSource(context));
  }
  const isPullRequest = isSet(issue.pull_request);
  return {
    kind: "issue_labeled",
    label: label.name,
    ...base(context, issue.number, toActor(context.envelope.sender), isPullRequest ? { headKnown: false } : null),
  };
}

function parseIssueComment(context: Context): ParseResult {
  const parsed = parsePart(context, issueCommentCreatedSchema);
  if (!parsed.ok) return parsed.result;
  const { issue, comment } = parsed.data;
  if (sameLogin(comment.user.login, context.options.botLogin)) return ignored("the bot's own comment");
  const pullRequest: PullRequestInfo | null = isSet(issue.pull_request) ? { headKnown: false } : null;
  const common = {
    ...base(context, issue.number, toActor(comment.user), pullRequest),
    commentId: comment.id,
  };
  return fromText(comment.body, context, {
    command: () => ({ ...common, commentKind: "issue", source: "comment" }),
    task: (instructions) => ({ kind: "comment", ...common, commentKind: "issue", instructions }),
  });
}

function parsePullRequestReview(context: Context): ParseResult {
  const parsed = parsePart(context, pullRequestReviewSubmittedSchema);
  if (!parsed.ok) return parsed.result;
  const { review, pull_request: pr } = parsed.data;
  const author = review.user ?? context.envelope.sender;
  if (sameLogin(author.login, context.options.botLogin)) return ignored("the bot's own review");
  if (review.body === null) return ignored("the review has no body");
  const pullRequest = knownPullRequest(pr);
  const common = { ...base(context, pr.number, toActor(author), pullRequest), commentId: review.id };
  return fromText(review.body, context, {
    command: () => ({ ...common, commentKind: "review", source: "pr_review" }),
    task: (instructions) => ({
      kind: "pr_review",
      ...common,
      isPullRequest: true,
      pullRequest,
      commentKind: "review",
      instructions,
      reviewState: review.state,
    }),
  });
}

function parsePullRequestReviewComment(context: Context): ParseResult {
  const parsed = parsePart(context, pullRequestReviewCommentCreatedSchema);
  if (!parsed.ok) return parsed.result;
  const { comment, pull_request: pr } = parsed.data;
  if (sameLogin(comment.user.login, context.options.botLogin)) return ignored("the bot's own comment");
  const pullRequest = knownPullRequest(pr);
  const common = { ...base(context, pr.number, toActor(comment.user), pullRequest), commentId: comment.id };
  return fromText(comment.body, context, {
    command: () => ({ ...common, commentKind: "review_comment", source: "pr_review_comment" }),
    task: (instructions) => ({
      kind: "pr_review_comment",
      ...common,
      isPullRequest: true,
      pullRequest,
      commentKind: "review_comment",
      instructions,
      path: comment.path,
      line: comment.line ?? null,
    }),
  });
}

type CommandBase = Omit<CommandTrigger, "kind" | "command" | "word" | "args">;

/** Turns a comment-like body into a command, a task, or nothing (no mention). */
function fromText(body: string, context: Context, build: { command: () => CommandBase; task: (instructions: string) => Trigger }): ParseResult {
  const invocation = parseCommand(body, context.options.botName);
  switch (invocation.kind) {
    case "none":
      // A repository may name the bot differently (`trigger.phrase`): worth a second look only when
      // the text mentions or slash-commands someone.
      return ignored(`does not mention @${context.options.botName}`, MAY_INVOKE.test(body) ? settingsSource(context) : undefined);
    case "command":
      return { kind: "command", ...build.command(), command: invocation.command, word: invocation.word, args: invocation.args };
    case "unknown_command":
      return { kind: "command", ...build.command(), command: "unknown", word: invocation.word, args: "" };
    case "task":
      return build.task(invocation.instructions);
  }
}

function base(context: Context, number: number, actor: Actor, pullRequest: PullRequestInfo | null) {
  const { envelope, options } = context;
  const installationId = envelope.installation?.id;
  return {
    deliveryId: options.deliveryId,
    repo: { owner: envelope.repository.owner.login, name: envelope.repository.name },
    number,
    ...(installationId === undefined ? {} : { installationId }),
    actor,
    isPullRequest: pullRequest !== null,
    pullRequest,
  };
}

function knownPullRequest(pr: WebhookPullRequest): Extract<PullRequestInfo, { headKnown: true }> {
  return {
    headKnown: true,
    head: { ref: pr.head.ref, repoFullName: pr.head.repo?.full_name ?? null, sha: pr.head.sha },
    baseRef: pr.base.ref,
  };
}

function parsePart<Schema extends z.ZodType>(context: Context, schema: Schema): { ok: true; data: z.infer<Schema> } | { ok: false; result: ParseResult } {
  const parsed = schema.safeParse(context.payload);
  if (parsed.success) return { ok: true, data: parsed.data };
  const event = `${context.eventName}.${context.envelope.action}`;
  return { ok: false, result: invalid(`${event} payload: ${describeIssues(parsed.error)}`) };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join(".") || "(root)";
      return `\`${path}\`: ${issue.message.replace(/^Invalid input: /, "")}`;
    })
    .join("; ");
}

function toActor(user: WebhookUser): Actor {
  const isBot = user.type === "Bot" || user.login.toLowerCase().endsWith("[bot]");
  return { login: user.login, type: isBot ? "Bot" : "User" };
}

/** GitHub logins and label names are case-insensitive. */
function sameLogin(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function sameLabel(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function isSet(value: object | null | undefined): boolean {
  return value !== null && value !== undefined;
}

/** `@name` or a line starting with `/name`. */
const MAY_INVOKE = /(?:^|[^\w.+\-/@])@[A-Za-z0-9]|^[ \t]*\/[A-Za-z0-9]/m;

function settingsSource(context: Context): NonNullable<IgnoredEvent["dependsOnRepoSettings"]> {
  const { repository, installation } = context.envelope;
  const repo = { owner: repository.owner.login, name: repository.name };
  return installation?.id === undefined ? { repo } : { repo, installationId: installation.id };
}

function ignored(reason: string, dependsOnRepoSettings?: IgnoredEvent["dependsOnRepoSettings"]): ParseResult {
  return dependsOnRepoSettings === undefined ? { kind: "ignored", reason } : { kind: "ignored", reason, dependsOnRepoSettings };
}

function invalid(reason: string): ParseResult {
  return { kind: "invalid", reason };
}
