/**
 * The fake GitHub's in-memory world: repositories (backed by bare git repos), users, issues and
 * pull requests, comments, reactions, installations and tokens. Route handlers and seeding
 * helpers both go through these functions, so a seeded issue and one created over REST are alike.
 */
import type { AccountType, AuthorAssociation, LabelShape, RepoShape, ReviewCommentShape } from "./github-json.js";
import { accountType, isoTime, stableId } from "./github-json.js";

export type Role = "admin" | "maintain" | "write" | "triage" | "read" | "none";
export type PermissionLevel = "read" | "write";
export type TokenPermissions = Record<string, PermissionLevel>;

export interface RepoRecord extends RepoShape {
  ownerType: "User" | "Organization";
  gitDir: string;
  installationId: number;
  /** Issues and pull requests share one number sequence, as on GitHub. */
  nextNumber: number;
  labels: Map<string, LabelShape>;
  roles: Map<string, Role>;
  /** `owner/name` of the repository this one was forked from. */
  parent?: string;
}

export interface PullRecord {
  head: { owner: string; repo: string; ref: string };
  baseRef: string;
  draft: boolean;
  mergedAt: string | null;
  maintainerCanModify: boolean;
}

export interface IssueRecord {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason: string | null;
  labels: string[];
  user: string;
  assignees: string[];
  locked: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  pull?: PullRecord;
}

export interface CommentRecord {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
  user: string;
  /** Created with an installation token: GitHub then fills `performed_via_github_app`. */
  viaApp: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What the fake stores; the author association and reactions are worked out when rendering. */
export type ReviewCommentRecord = Omit<ReviewCommentShape, "authorAssociation" | "reactions">;

export type ReactionContent = "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";
export const REACTION_CONTENTS: readonly ReactionContent[] = ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"];

export type ReactionSubject =
  | { kind: "issue"; owner: string; repo: string; number: number }
  | { kind: "issue_comment"; owner: string; repo: string; id: number }
  | { kind: "review_comment"; owner: string; repo: string; id: number };

export interface ReactionRecord {
  id: number;
  subject: ReactionSubject;
  content: ReactionContent;
  user: string;
  createdAt: string;
}

export interface InstallationRecord {
  id: number;
  account: string;
  accountType: AccountType;
}

export interface TokenRecord {
  token: string;
  kind: "installation" | "static";
  installationId?: number;
  /** Who the token acts as: `<slug>[bot]` for installation tokens. */
  login: string;
  /** Epoch ms; Infinity for static tokens. */
  expiresAt: number;
  revoked: boolean;
  permissions: TokenPermissions;
  /** Lower-cased repository names the token is limited to; undefined means every repo of the installation. */
  repositories?: string[];
  createdAt: number;
}

export interface GitHubState {
  repos: Map<string, RepoRecord>;
  users: Map<string, { login: string; type: AccountType }>;
  issues: Map<string, IssueRecord>;
  comments: Map<number, CommentRecord>;
  reviewComments: Map<number, ReviewCommentRecord>;
  reactions: ReactionRecord[];
  installations: Map<number, InstallationRecord>;
  tokens: Map<string, TokenRecord>;
  nextId: { comment: number; reviewComment: number; reaction: number; installation: number };
}

export function createState(firstInstallationId: number): GitHubState {
  return {
    repos: new Map(),
    users: new Map(),
    issues: new Map(),
    comments: new Map(),
    reviewComments: new Map(),
    reactions: [],
    installations: new Map(),
    tokens: new Map(),
    // Distinct ranges make a mixed-up id (comment id used as issue number...) fail loudly in tests.
    nextId: { comment: 2_000_000_001, reviewComment: 3_000_000_001, reaction: 4_000_000_001, installation: firstInstallationId },
  };
}

export const repoKey = (owner: string, repo: string) => `${owner}/${repo}`.toLowerCase();
const issueKey = (owner: string, repo: string, number: number) => `${repoKey(owner, repo)}#${number}`;

export function ensureUser(state: GitHubState, login: string, type: AccountType = accountType(login)): void {
  if (!state.users.has(login.toLowerCase())) state.users.set(login.toLowerCase(), { login, type });
}

export function findRepo(state: GitHubState, owner: string, repo: string): RepoRecord | undefined {
  return state.repos.get(repoKey(owner, repo));
}

export function ensureInstallation(state: GitHubState, account: string, type: AccountType): InstallationRecord {
  for (const installation of state.installations.values()) {
    if (installation.account.toLowerCase() === account.toLowerCase()) return installation;
  }
  const installation = { id: state.nextId.installation++, account, accountType: type };
  state.installations.set(installation.id, installation);
  return installation;
}

export function findIssue(state: GitHubState, owner: string, repo: string, number: number): IssueRecord | undefined {
  return state.issues.get(issueKey(owner, repo, number));
}

export function createIssue(
  state: GitHubState,
  repo: RepoRecord,
  fields: {
    title: string;
    body?: string | null;
    user: string;
    labels?: string[];
    assignees?: string[];
    state?: "open" | "closed";
    pull?: PullRecord;
    number?: number;
  },
): IssueRecord {
  const number = fields.number ?? repo.nextNumber;
  repo.nextNumber = Math.max(repo.nextNumber, number + 1);
  const now = isoTime();
  const issue: IssueRecord = {
    // Stable, so webhook payloads built without the fake's state carry the same issue id.
    id: stableId("issue", `${repo.owner}/${repo.name}#${number}`),
    owner: repo.owner,
    repo: repo.name,
    number,
    title: fields.title,
    body: fields.body ?? null,
    state: fields.state ?? "open",
    stateReason: null,
    labels: [],
    user: fields.user,
    assignees: [...(fields.assignees ?? [])],
    locked: false,
    createdAt: now,
    updatedAt: now,
    closedAt: fields.state === "closed" ? now : null,
    ...(fields.pull ? { pull: fields.pull } : {}),
  };
  ensureUser(state, fields.user);
  for (const login of issue.assignees) ensureUser(state, login);
  setLabels(repo, issue, fields.labels ?? []);
  state.issues.set(issueKey(repo.owner, repo.name, number), issue);
  return issue;
}

export function setLabels(repo: RepoRecord, issue: IssueRecord, labels: string[]): void {
  for (const name of labels) {
    if (!repo.labels.has(name.toLowerCase())) repo.labels.set(name.toLowerCase(), { name, color: "ededed", description: null });
  }
  issue.labels = [...new Set(labels.map((name) => repo.labels.get(name.toLowerCase())?.name ?? name))];
}

export function setIssueState(issue: IssueRecord, state: "open" | "closed", reason?: string | null): void {
  if (issue.state !== state) issue.closedAt = state === "closed" ? isoTime() : null;
  issue.state = state;
  issue.stateReason = state === "closed" ? (reason ?? "completed") : state === "open" && reason === "reopened" ? "reopened" : null;
}

export function addIssueComment(state: GitHubState, issue: IssueRecord, body: string, user: string, viaApp = false): CommentRecord {
  const now = isoTime();
  const comment: CommentRecord = {
    id: state.nextId.comment++,
    owner: issue.owner,
    repo: issue.repo,
    issueNumber: issue.number,
    body,
    user,
    viaApp,
    createdAt: now,
    updatedAt: now,
  };
  ensureUser(state, user);
  state.comments.set(comment.id, comment);
  issue.updatedAt = now;
  return comment;
}

export function issueComments(state: GitHubState, owner: string, repo: string, number: number): CommentRecord[] {
  const key = repoKey(owner, repo);
  return [...state.comments.values()].filter((c) => repoKey(c.owner, c.repo) === key && c.issueNumber === number).sort((a, b) => a.id - b.id);
}

export function addReviewComment(
  state: GitHubState,
  pull: IssueRecord,
  fields: {
    body: string;
    user: string;
    path: string;
    line?: number | null;
    side?: "LEFT" | "RIGHT";
    commitId: string;
    diffHunk?: string;
    inReplyToId?: number;
  },
): ReviewCommentRecord {
  const now = isoTime();
  const id = state.nextId.reviewComment++;
  const comment: ReviewCommentRecord = {
    id,
    owner: pull.owner,
    repo: pull.repo,
    pullNumber: pull.number,
    // Every review comment gets its own single-comment review, as when posted outside a review.
    reviewId: id + 100_000_000,
    body: fields.body,
    user: fields.user,
    path: fields.path,
    line: fields.line ?? 1,
    side: fields.side ?? "RIGHT",
    commitId: fields.commitId,
    diffHunk: fields.diffHunk ?? `@@ -1,1 +1,1 @@\n+${fields.path}`,
    ...(fields.inReplyToId === undefined ? {} : { inReplyToId: fields.inReplyToId }),
    createdAt: now,
    updatedAt: now,
  };
  ensureUser(state, fields.user);
  state.reviewComments.set(comment.id, comment);
  return comment;
}

export function reviewComments(state: GitHubState, owner: string, repo: string, pullNumber: number): ReviewCommentRecord[] {
  const key = repoKey(owner, repo);
  return [...state.reviewComments.values()].filter((c) => repoKey(c.owner, c.repo) === key && c.pullNumber === pullNumber).sort((a, b) => a.id - b.id);
}

function sameSubject(a: ReactionSubject, b: ReactionSubject): boolean {
  if (a.kind !== b.kind || repoKey(a.owner, a.repo) !== repoKey(b.owner, b.repo)) return false;
  if (a.kind === "issue" && b.kind === "issue") return a.number === b.number;
  return (a as { id: number }).id === (b as { id: number }).id;
}

export function reactionsOn(state: GitHubState, subject: ReactionSubject): ReactionRecord[] {
  return state.reactions.filter((r) => sameSubject(r.subject, subject));
}

/** Returns the reaction and whether it is new; GitHub answers 200 (not 201) for a repeat. */
export function addReaction(
  state: GitHubState,
  subject: ReactionSubject,
  content: ReactionContent,
  user: string,
): { reaction: ReactionRecord; created: boolean } {
  const existing = reactionsOn(state, subject).find((r) => r.content === content && r.user.toLowerCase() === user.toLowerCase());
  if (existing) return { reaction: existing, created: false };
  const reaction: ReactionRecord = { id: state.nextId.reaction++, subject, content, user, createdAt: isoTime() };
  ensureUser(state, user);
  state.reactions.push(reaction);
  return { reaction, created: true };
}

/** Repository role of a user: the owner of a user-owned repo is admin; others need a grant. */
export function roleOf(repo: RepoRecord, login: string): Role | undefined {
  if (repo.ownerType !== "Organization" && repo.owner.toLowerCase() === login.toLowerCase()) return "admin";
  return repo.roles.get(login.toLowerCase());
}

export function authorAssociation(repo: RepoRecord | undefined, login: string): AuthorAssociation {
  if (!repo) return "NONE";
  if (repo.owner.toLowerCase() === login.toLowerCase()) return "OWNER";
  const role = repo.roles.get(login.toLowerCase());
  if (role && role !== "none") return repo.ownerType === "Organization" ? "MEMBER" : "COLLABORATOR";
  return "NONE";
}

/** Every pull request of a repository, newest first (GitHub's default order). */
export function pullsOf(state: GitHubState, owner: string, repo: string): IssueRecord[] {
  const key = repoKey(owner, repo);
  return [...state.issues.values()].filter((i) => i.pull && repoKey(i.owner, i.repo) === key).sort((a, b) => b.number - a.number);
}
