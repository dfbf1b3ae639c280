/**
 * Signed webhook deliveries and payload builders. Payloads start from the community examples in
 * `@octokit/webhooks-examples` (so fields nobody thought to set are still there, shaped as GitHub
 * sends them) and override repository, users, installation and the subject with values that
 * match the fake GitHub (same ids, same URLs; see FakeGitHub.repoContext).
 */
import { createHmac, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks";
import {
  githubLinks,
  issueCommentJson,
  issueJson,
  labelJson,
  nodeId,
  pullJson,
  repoJson,
  reviewCommentJson,
  stableId,
  userJson,
  isoTime,
  type AccountType,
  type AuthorAssociation,
  type GitHubLinks,
  type IssueShape,
  type RepoShape,
} from "./github-json.js";

export interface SendWebhookOptions {
  /** Full webhook URL, e.g. `${serverUrl}/api/github/webhooks`. */
  url: string;
  secret: string;
  /** X-GitHub-Event, e.g. "issues". */
  event: string;
  payload: unknown;
  /** @defaultValue a random UUID, as GitHub sends */
  deliveryId?: string;
}

export interface WebhookResponse {
  status: number;
  body: string;
  deliveryId: string;
}

/** Posts a delivery exactly as GitHub's hookshot does, signed with both HMAC headers. */
export async function sendWebhook(options: SendWebhookOptions): Promise<WebhookResponse> {
  const deliveryId = options.deliveryId ?? randomUUID();
  const body = JSON.stringify(options.payload);
  const payload = options.payload as { installation?: { id?: number } } | null;
  const response = await fetch(options.url, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/fake",
      "x-github-event": options.event,
      "x-github-delivery": deliveryId,
      "x-github-hook-id": "1",
      "x-github-hook-installation-target-type": "integration",
      "x-github-hook-installation-target-id": String(payload?.installation?.id ?? 1),
      "x-hub-signature": `sha1=${createHmac("sha1", options.secret).update(body).digest("hex")}`,
      "x-hub-signature-256": `sha256=${createHmac("sha256", options.secret).update(body).digest("hex")}`,
    },
  });
  return { status: response.status, body: await response.text(), deliveryId };
}

/** The payload type Probot hands to `app.on(name, ...)` handlers as `context.payload`. */
export type WebhookPayload<TName extends EmitterWebhookEventName> = EmitterWebhookEvent<TName>["payload"];

/** Where the event happened; FakeGitHub.repoContext(owner, repo) returns one. */
export interface RepoContext {
  /** @defaultValue "https://github.com" */
  serverUrl?: string;
  owner: string;
  repo: string;
  /** @defaultValue "User" */
  ownerType?: "User" | "Organization";
  /** @defaultValue "main" */
  defaultBranch?: string;
  /** @defaultValue true */
  private?: boolean;
  installationId: number;
}

interface ExampleDefinition {
  name: string;
  examples: Array<Record<string, unknown>>;
}

const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as ExampleDefinition[];

/**
 * A deep copy of an example delivery (preferring one sent to an App installation), with its
 * github.com URLs moved onto `links` so leftover fields point at the same server.
 */
function example(event: string, action: string, links: GitHubLinks): Record<string, unknown> {
  const candidates = examples.find((d) => d.name === event)?.examples.filter((e) => e.action === action) ?? [];
  const chosen = candidates.find((e) => "installation" in e && !("organization" in e)) ?? candidates[0];
  if (!chosen) throw new Error(`@octokit/webhooks-examples has no ${event}.${action} example`);
  const text = JSON.stringify(chosen).replaceAll("https://api.github.com", links.api).replaceAll("https://github.com", links.web);
  const copy = JSON.parse(text) as Record<string, unknown>;
  delete copy.organization;
  return copy;
}

const merge = (base: unknown, override: object) => ({ ...(base as object), ...override });

function common(ctx: RepoContext, event: string, action: string, sender: string, senderType?: AccountType) {
  const links = githubLinks(ctx.serverUrl ?? "https://github.com");
  const repo: RepoShape = {
    owner: ctx.owner,
    ownerType: ctx.ownerType ?? "User",
    name: ctx.repo,
    defaultBranch: ctx.defaultBranch ?? "main",
    private: ctx.private ?? true,
  };
  const base = example(event, action, links);
  const payload: Record<string, unknown> = {
    ...base,
    action,
    repository: merge(base.repository, repoJson(links, repo)),
    sender: userJson(links, sender, senderType),
    installation: { id: ctx.installationId, node_id: nodeId("IntegrationInstallation", ctx.installationId) },
  };
  if (ctx.ownerType === "Organization") {
    const org = userJson(links, ctx.owner, "Organization");
    payload.organization = {
      login: org.login,
      id: org.id,
      node_id: org.node_id,
      url: `${links.api}/orgs/${ctx.owner}`,
      avatar_url: org.avatar_url,
      description: null,
    };
  }
  return { links, repo, base, payload };
}

export interface IssueFields {
  issueNumber: number;
  /** @defaultValue "Example issue" */
  title?: string;
  /** @defaultValue "" */
  body?: string | null;
  /** Who opened the issue. @defaultValue the sender */
  issueAuthor?: string;
  labels?: string[];
  assignees?: string[];
  /** The id the fake GitHub gave the issue (FakeGitHub.getIssue(...).id), if a test compares it. */
  issueId?: number;
}

function issueFrom(ctx: RepoContext, fields: IssueFields, sender: string, isPullRequest = false): IssueShape {
  const now = isoTime();
  return {
    owner: ctx.owner,
    repo: ctx.repo,
    number: fields.issueNumber,
    id: fields.issueId ?? stableId("issue", `${ctx.owner}/${ctx.repo}#${fields.issueNumber}`),
    title: fields.title ?? "Example issue",
    body: fields.body === undefined ? "" : fields.body,
    state: "open",
    labels: (fields.labels ?? []).map((name) => ({ name })),
    user: fields.issueAuthor ?? sender,
    assignees: fields.assignees ?? [],
    comments: 0,
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    authorAssociation: (fields.issueAuthor ?? sender).toLowerCase() === ctx.owner.toLowerCase() ? "OWNER" : "NONE",
    ...(isPullRequest ? { pullRequest: { draft: false, mergedAt: null } } : {}),
  };
}

export function issuesAssignedPayload(options: RepoContext & IssueFields & { assignee?: string; sender?: string }): WebhookPayload<"issues.assigned"> {
  const sender = options.sender ?? "alice";
  const assignee = options.assignee ?? "tackle[bot]";
  const { links, base, payload } = common(options, "issues", "assigned", sender);
  const assignees = [...new Set([...(options.assignees ?? []), assignee])];
  return {
    ...payload,
    issue: merge(base.issue, issueJson(links, issueFrom(options, { ...options, assignees }, sender))),
    assignee: userJson(links, assignee),
  } as unknown as WebhookPayload<"issues.assigned">;
}

export function issuesLabeledPayload(options: RepoContext & IssueFields & { label?: string; sender?: string }): WebhookPayload<"issues.labeled"> {
  const sender = options.sender ?? "alice";
  const label = options.label ?? "tackle";
  const { links, base, payload } = common(options, "issues", "labeled", sender);
  const labels = [...new Set([...(options.labels ?? []), label])];
  return {
    ...payload,
    issue: merge(base.issue, issueJson(links, issueFrom(options, { ...options, labels }, sender))),
    label: labelJson(links, options.owner, options.repo, { name: label }),
  } as unknown as WebhookPayload<"issues.labeled">;
}

export function issueCommentCreatedPayload(
  options: RepoContext &
    IssueFields & {
      isPullRequest?: boolean;
      commentBody: string;
      /** Use the id FakeGitHub.addComment returned so reactions land on a real comment. */
      commentId?: number;
      /** @defaultValue "alice" */
      commenter?: string;
      /** @defaultValue "Bot" when the login ends in [bot], else "User" */
      commenterType?: "User" | "Bot";
      authorAssociation?: AuthorAssociation;
    },
): WebhookPayload<"issue_comment.created"> {
  const commenter = options.commenter ?? "alice";
  const { links, base, payload } = common(options, "issue_comment", "created", commenter, options.commenterType);
  const issue = issueFrom(options, options, commenter, options.isPullRequest ?? false);
  const now = isoTime();
  const comment = issueCommentJson(links, {
    owner: options.owner,
    repo: options.repo,
    issueNumber: options.issueNumber,
    isPullRequest: options.isPullRequest ?? false,
    id: options.commentId ?? stableId("comment", `${options.owner}/${options.repo}#${options.issueNumber}/${now}`),
    body: options.commentBody,
    user: commenter,
    createdAt: now,
    updatedAt: now,
    authorAssociation: options.authorAssociation ?? (commenter.toLowerCase() === options.owner.toLowerCase() ? "OWNER" : "NONE"),
  });
  return {
    ...payload,
    issue: merge(base.issue, issueJson(links, issue)),
    comment: merge(base.comment, { ...comment, user: userJson(links, commenter, options.commenterType) }),
  } as unknown as WebhookPayload<"issue_comment.created">;
}

export interface PullFields extends Omit<IssueFields, "issueNumber"> {
  pullNumber: number;
  /** The PR's head: a branch of this repo, or of `owner`'s fork named `repo`. */
  head: { ref: string; sha?: string; owner?: string; repo?: string };
  base?: { ref?: string; sha?: string };
}

const PLACEHOLDER_SHA = "0123456789abcdef0123456789abcdef01234567";

function pullFrom(ctx: RepoContext, links: GitHubLinks, repo: RepoShape, fields: PullFields, sender: string) {
  const issue = issueFrom(ctx, { ...fields, issueNumber: fields.pullNumber }, sender, true);
  const headRepo: RepoShape =
    fields.head.owner && fields.head.owner.toLowerCase() !== ctx.owner.toLowerCase()
      ? { owner: fields.head.owner, name: fields.head.repo ?? ctx.repo, defaultBranch: repo.defaultBranch, private: repo.private, fork: true }
      : repo;
  return pullJson(links, {
    issue: { ...issue, pullRequest: { draft: false, mergedAt: null } },
    head: { ref: fields.head.ref, sha: fields.head.sha ?? PLACEHOLDER_SHA, repo: headRepo },
    base: { ref: fields.base?.ref ?? repo.defaultBranch, sha: fields.base?.sha ?? PLACEHOLDER_SHA, repo },
  });
}

export function pullRequestReviewSubmittedPayload(
  options: RepoContext &
    PullFields & {
      reviewBody: string | null;
      /** @defaultValue "commented" */
      reviewState?: "commented" | "approved" | "changes_requested";
      reviewId?: number;
      /** @defaultValue "alice" */
      reviewer?: string;
    },
): WebhookPayload<"pull_request_review.submitted"> {
  const reviewer = options.reviewer ?? "alice";
  const { links, repo, base, payload } = common(options, "pull_request_review", "submitted", reviewer);
  const pull = pullFrom(options, links, repo, options, reviewer);
  const id = options.reviewId ?? stableId("review", `${options.owner}/${options.repo}#${options.pullNumber}/${Date.now()}`);
  const html = `${pull.html_url}#pullrequestreview-${id}`;
  const review = {
    id,
    node_id: nodeId("PullRequestReview", id),
    user: userJson(links, reviewer),
    body: options.reviewBody,
    commit_id: pull.head.sha,
    submitted_at: isoTime(),
    state: options.reviewState ?? "commented",
    html_url: html,
    pull_request_url: pull.url,
    author_association: reviewer.toLowerCase() === options.owner.toLowerCase() ? "OWNER" : "NONE",
    _links: { html: { href: html }, pull_request: { href: pull.url } },
  };
  return {
    ...payload,
    review: merge(base.review, review),
    pull_request: merge(base.pull_request, pull),
  } as unknown as WebhookPayload<"pull_request_review.submitted">;
}

export function pullRequestReviewCommentCreatedPayload(
  options: RepoContext &
    PullFields & {
      commentBody: string;
      commentId?: number;
      /** @defaultValue "alice" */
      commenter?: string;
      /** @defaultValue "README.md" */
      path?: string;
      line?: number;
      inReplyToId?: number;
    },
): WebhookPayload<"pull_request_review_comment.created"> {
  const commenter = options.commenter ?? "alice";
  const { links, repo, base, payload } = common(options, "pull_request_review_comment", "created", commenter);
  const pull = pullFrom(options, links, repo, options, commenter);
  const now = isoTime();
  const id = options.commentId ?? stableId("review-comment", `${options.owner}/${options.repo}#${options.pullNumber}/${now}`);
  const comment = reviewCommentJson(links, {
    owner: options.owner,
    repo: options.repo,
    pullNumber: options.pullNumber,
    id,
    reviewId: id + 100_000_000,
    body: options.commentBody,
    user: commenter,
    path: options.path ?? "README.md",
    line: options.line ?? 1,
    side: "RIGHT",
    commitId: pull.head.sha,
    diffHunk: `@@ -1,1 +1,1 @@\n+${options.path ?? "README.md"}`,
    ...(options.inReplyToId === undefined ? {} : { inReplyToId: options.inReplyToId }),
    createdAt: now,
    updatedAt: now,
    authorAssociation: commenter.toLowerCase() === options.owner.toLowerCase() ? "OWNER" : "NONE",
  });
  return {
    ...payload,
    comment: merge(base.comment, comment),
    pull_request: merge(base.pull_request, pull),
  } as unknown as WebhookPayload<"pull_request_review_comment.created">;
}
