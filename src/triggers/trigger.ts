import type { JobData } from "../jobs/job-data.js";
import type { CommandName } from "./parse-command.js";
import { sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";

/** Below the JobData limit of 65_536, leaving room for the note saying what was cut. */
const MAX_INSTRUCTIONS = 60_000;

export interface RepoRef {
  owner: string;
  name: string;
}

export interface Actor {
  login: string;
  /** `Bot` for GitHub's bot accounts (type Bot or a login ending in `[bot]`); anything else is a `User`. */
  type: "User" | "Bot";
}

/** Which reaction endpoint a comment id belongs to. */
export type CommentKind = "issue" | "review_comment" | "review";

export interface PullRequestHead {
  ref: string;
  /** `owner/name` of the head repository; null when the fork was deleted. */
  repoFullName: string | null;
  sha: string;
}

/**
 * What the payload says about the pull request. `issue_comment` payloads carry no head, so the
 * worker fetches it (`headKnown: false`); review events include the whole pull request.
 */
export type PullRequestInfo = { headKnown: true; head: PullRequestHead; baseRef: string } | { headKnown: false };

interface TriggerBase {
  /** X-GitHub-Delivery of the webhook (dedupe key); synthetic for Action and CLI runs. */
  deliveryId: string;
  repo: RepoRef;
  /** Issue or pull request number. */
  number: number;
  /** Absent for Action events, which carry no installation. */
  installationId?: number;
  /** Who asked: the sender for assign and label, the author for comments and reviews. */
  actor: Actor;
  isPullRequest: boolean;
  /** Set exactly when `isPullRequest`. */
  pullRequest: PullRequestInfo | null;
}

interface FromComment {
  /** The comment (or review) that triggered the event, for the 👀 reaction. */
  commentId: number;
  commentKind: CommentKind;
}

export interface IssueAssignedTrigger extends TriggerBase {
  kind: "issue_assigned";
}

export interface IssueLabeledTrigger extends TriggerBase {
  kind: "issue_labeled";
  label: string;
}

/** `issue_comment.created` on an issue or a pull request. */
export interface CommentTrigger extends TriggerBase, FromComment {
  kind: "comment";
  commentKind: "issue";
  /** The comment with the invocation removed, trimmed; untrusted data, sanitized when the prompt is built. */
  instructions: string;
}

export interface PrReviewTrigger extends TriggerBase, FromComment {
  kind: "pr_review";
  commentKind: "review";
  instructions: string;
  isPullRequest: true;
  pullRequest: Extract<PullRequestInfo, { headKnown: true }>;
  /** `approved`, `changes_requested` or `commented`. */
  reviewState: string;
}

export interface PrReviewCommentTrigger extends TriggerBase, FromComment {
  kind: "pr_review_comment";
  commentKind: "review_comment";
  instructions: string;
  isPullRequest: true;
  pullRequest: Extract<PullRequestInfo, { headKnown: true }>;
  /** The file the review comment is on. */
  path: string;
  /** The line in the diff's new version; null on outdated comments. */
  line: number | null;
}

/** `/tackle stop|retry|approve|deny|help`, from any comment-like event. */
export interface CommandTrigger extends TriggerBase, FromComment {
  kind: "command";
  /** `unknown`: a slash command with one word that is not a command; the caller replies with the help text. */
  command: CommandName | "unknown";
  /** The word as written, lowercased. */
  word: string;
  /** Text after the command word (e.g. the reason given with `deny`), trimmed. */
  args: string;
  source: "comment" | "pr_review" | "pr_review_comment";
}

/** A trigger that starts (or continues) a job. */
export type TaskTrigger = IssueAssignedTrigger | IssueLabeledTrigger | CommentTrigger | PrReviewTrigger | PrReviewCommentTrigger;

export type Trigger = TaskTrigger | CommandTrigger;

export interface IgnoredEvent {
  kind: "ignored";
  reason: string;
  /**
   * Set when the repository's own trigger settings (a custom label or phrase in `.github/tackle.yml`)
   * could make this event a trigger: where to read them before giving up on it.
   */
  dependsOnRepoSettings?: { repo: RepoRef; installationId?: number };
}

export interface InvalidEvent {
  kind: "invalid";
  /** Names the missing or bad field, e.g. "`comment.body`: expected string, received undefined". */
  reason: string;
}

export type ParseResult = Trigger | IgnoredEvent | InvalidEvent;

export function isTrigger(result: ParseResult): result is Trigger {
  return result.kind !== "ignored" && result.kind !== "invalid";
}

export function isTaskTrigger(result: ParseResult): result is TaskTrigger {
  return isTrigger(result) && result.kind !== "command";
}

export function isCommandTrigger(result: ParseResult): result is CommandTrigger {
  return result.kind === "command";
}

/** The `trigger` part of a job's data; the instructions are sanitized (they reach the model). */
export function jobTriggerOf(trigger: TaskTrigger): JobData["trigger"] {
  const instructions = (text: string) => sanitizeUntrustedText(text, { maxLength: MAX_INSTRUCTIONS }).trim();
  switch (trigger.kind) {
    case "issue_assigned":
    case "issue_labeled":
      return { kind: trigger.kind, actor: trigger.actor.login };
    case "comment":
      return {
        kind: trigger.isPullRequest ? "pr_comment" : "issue_comment",
        actor: trigger.actor.login,
        commentId: trigger.commentId,
        commentKind: trigger.commentKind,
        instructions: instructions(trigger.instructions),
      };
    case "pr_review":
    case "pr_review_comment":
      return {
        kind: trigger.kind,
        actor: trigger.actor.login,
        commentId: trigger.commentId,
        commentKind: trigger.commentKind,
        instructions: instructions(trigger.instructions),
      };
  }
}
