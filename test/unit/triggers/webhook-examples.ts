import examples from "@octokit/webhooks-examples" with { type: "json" };
import type {
  IssueCommentEvent,
  IssuesAssignedEvent,
  IssuesLabeledEvent,
  PullRequestReviewCommentCreatedEvent,
  PullRequestReviewSubmittedEvent,
} from "@octokit/webhooks-types";

interface Definition {
  name: string;
  examples: Array<{ action?: string }>;
}

/** A fresh copy of the first recorded payload for `name.action`, ready to be edited by a test. */
function example<T>(name: string, action: string): T {
  const definition = (examples as unknown as Definition[]).find((entry) => entry.name === name);
  const payload = definition?.examples.find((entry) => entry.action === action);
  if (payload === undefined) throw new Error(`no example for ${name}.${action}`);
  return structuredClone(payload) as T;
}

export const BOT_LOGIN = "tackle[bot]";
export const INSTALLATION = { id: 4242, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==" };

const bot = { login: BOT_LOGIN, type: "Bot" as const };

export function issuesAssigned(): IssuesAssignedEvent {
  const payload = example<IssuesAssignedEvent>("issues", "assigned");
  payload.assignee = { ...payload.issue.user, ...bot };
  payload.installation = INSTALLATION;
  return payload;
}

export function issuesLabeled(label = "tackle"): IssuesLabeledEvent {
  const payload = example<IssuesLabeledEvent>("issues", "labeled");
  payload.label = { ...payload.label!, name: label };
  payload.installation = INSTALLATION;
  return payload;
}

export function issueComment(body: string, options: { onPullRequest?: boolean } = {}): IssueCommentEvent {
  const payload = example<IssueCommentEvent>("issue_comment", "created");
  payload.comment.body = body;
  payload.installation = INSTALLATION;
  if (options.onPullRequest) {
    const url = `${payload.repository.url}/pulls/${payload.issue.number}`;
    payload.issue.pull_request = { url, html_url: url, diff_url: `${url}.diff`, patch_url: `${url}.patch`, merged_at: null };
  }
  return payload;
}

export function pullRequestReview(body: string | null): PullRequestReviewSubmittedEvent {
  const payload = example<PullRequestReviewSubmittedEvent>("pull_request_review", "submitted");
  payload.review.body = body;
  payload.installation = INSTALLATION;
  return payload;
}

export function pullRequestReviewComment(body: string): PullRequestReviewCommentCreatedEvent {
  const payload = example<PullRequestReviewCommentCreatedEvent>("pull_request_review_comment", "created");
  payload.comment.body = body;
  payload.installation = INSTALLATION;
  return payload;
}

export function rawExample(name: string, action: string): Record<string, unknown> {
  return example<Record<string, unknown>>(name, action);
}
