/**
 * GitHub's JSON shapes, built from plain inputs so the fake REST server and the webhook payload
 * builders render the same repository, user and issue identically (same ids, same URLs).
 */
import { createHash } from "node:crypto";

export interface GitHubLinks {
  /** Web root, e.g. http://127.0.0.1:PORT (github.com's https://github.com). */
  web: string;
  /** REST root, `${web}/api/v3` as on GitHub Enterprise Server. */
  api: string;
}

export function githubLinks(webUrl: string): GitHubLinks {
  const web = webUrl.replace(/\/$/, "");
  return { web, api: `${web}/api/v3` };
}

/**
 * Deterministic numeric id for a named thing, so a payload built without access to the fake's
 * state still carries the ids the fake serves (repository.id, user.id).
 */
export function stableId(kind: string, key: string): number {
  const digest = createHash("sha256").update(`${kind}:${key.toLowerCase()}`).digest();
  return (digest.readUInt32BE(0) % 900_000_000) + 100_000_000;
}

/** GitHub's legacy global node id: base64 of `0<len>:<Type><id>`. */
export function nodeId(type: string, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}

/** GitHub timestamps have no milliseconds. */
export function isoTime(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export type AccountType = "User" | "Bot" | "Organization";

export function accountType(login: string): AccountType {
  return login.endsWith("[bot]") ? "Bot" : "User";
}

export function userJson(links: GitHubLinks, login: string, type: AccountType = accountType(login)) {
  const id = stableId("user", login);
  const api = `${links.api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: nodeId(type === "Bot" ? "Bot" : type, id),
    avatar_url: `${links.web}/avatars/u/${id}?v=4`,
    gravatar_id: "",
    url: api,
    html_url: type === "Bot" ? `${links.web}/apps/${login.replace(/\[bot\]$/, "")}` : `${links.web}/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type,
    user_view_type: "public",
    site_admin: false,
  };
}

export interface RepoShape {
  owner: string;
  ownerType?: AccountType;
  name: string;
  defaultBranch: string;
  private: boolean;
  fork?: boolean;
  description?: string | null;
  createdAt?: string;
  pushedAt?: string;
  /** GitHub's numeric id; @defaultValue a stable hash of the name (repoId) */
  id?: number;
}

export function repoId(owner: string, name: string): number {
  return stableId("repo", `${owner}/${name}`);
}

export function repoJson(links: GitHubLinks, repo: RepoShape) {
  const id = repo.id ?? repoId(repo.owner, repo.name);
  const fullName = `${repo.owner}/${repo.name}`;
  const api = `${links.api}/repos/${fullName}`;
  const host = new URL(links.web).host;
  const created = repo.createdAt ?? "2024-01-01T00:00:00Z";
  return {
    id,
    node_id: nodeId("Repository", id),
    name: repo.name,
    full_name: fullName,
    private: repo.private,
    owner: userJson(links, repo.owner, repo.ownerType ?? "User"),
    html_url: `${links.web}/${fullName}`,
    description: repo.description ?? null,
    fork: repo.fork ?? false,
    url: api,
    forks_url: `${api}/forks`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    branches_url: `${api}/branches{/branch}`,
    tags_url: `${api}/tags`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    contents_url: `${api}/contents/{+path}`,
    commits_url: `${api}/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    labels_url: `${api}/labels{/name}`,
    hooks_url: `${api}/hooks`,
    created_at: created,
    updated_at: created,
    pushed_at: repo.pushedAt ?? created,
    git_url: `git://${host}/${fullName}.git`,
    ssh_url: `git@${host}:${fullName}.git`,
    clone_url: `${links.web}/${fullName}.git`,
    svn_url: `${links.web}/${fullName}`,
    homepage: null,
    size: 1,
    stargazers_count: 0,
    watchers_count: 0,
    language: null,
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: true,
    has_pages: false,
    has_discussions: false,
    forks_count: 0,
    mirror_url: null,
    archived: false,
    disabled: false,
    open_issues_count: 0,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [] as string[],
    visibility: repo.private ? "private" : "public",
    forks: 0,
    open_issues: 0,
    watchers: 0,
    default_branch: repo.defaultBranch,
  };
}

export interface LabelShape {
  name: string;
  color?: string;
  description?: string | null;
}

export function labelJson(links: GitHubLinks, owner: string, repo: string, label: LabelShape) {
  const id = stableId("label", `${owner}/${repo}/${label.name}`);
  return {
    id,
    node_id: nodeId("Label", id),
    url: `${links.api}/repos/${owner}/${repo}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color ?? "ededed",
    default: false,
    description: label.description ?? null,
  };
}

export function reactionSummary(url: string, contents: string[] = []) {
  const counts: Record<string, number> = {
    "+1": 0,
    "-1": 0,
    laugh: 0,
    hooray: 0,
    confused: 0,
    heart: 0,
    rocket: 0,
    eyes: 0,
  };
  for (const content of contents) counts[content] = (counts[content] ?? 0) + 1;
  return { url, total_count: contents.length, ...counts };
}

export type AuthorAssociation = "OWNER" | "MEMBER" | "COLLABORATOR" | "CONTRIBUTOR" | "NONE";

export interface IssueShape {
  owner: string;
  repo: string;
  number: number;
  id: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason?: string | null;
  labels: LabelShape[];
  user: string;
  assignees: string[];
  locked?: boolean;
  comments: number;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  authorAssociation: AuthorAssociation;
  reactions?: string[];
  /** Set for pull requests, which GitHub also serves as issues. */
  pullRequest?: { draft: boolean; mergedAt: string | null };
}

export function issueJson(links: GitHubLinks, issue: IssueShape) {
  const repoApi = `${links.api}/repos/${issue.owner}/${issue.repo}`;
  const api = `${repoApi}/issues/${issue.number}`;
  const html = `${links.web}/${issue.owner}/${issue.repo}/${issue.pullRequest ? "pull" : "issues"}/${issue.number}`;
  const assignees = issue.assignees.map((login) => userJson(links, login));
  return {
    url: api,
    repository_url: repoApi,
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: html,
    id: issue.id,
    node_id: nodeId(issue.pullRequest ? "PullRequest" : "Issue", issue.id),
    number: issue.number,
    title: issue.title,
    user: userJson(links, issue.user),
    labels: issue.labels.map((label) => labelJson(links, issue.owner, issue.repo, label)),
    state: issue.state,
    locked: issue.locked ?? false,
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    comments: issue.comments,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    author_association: issue.authorAssociation,
    active_lock_reason: null,
    ...(issue.pullRequest
      ? {
          draft: issue.pullRequest.draft,
          pull_request: {
            url: `${repoApi}/pulls/${issue.number}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: issue.pullRequest.mergedAt,
          },
        }
      : {}),
    body: issue.body,
    reactions: reactionSummary(`${api}/reactions`, issue.reactions),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: issue.stateReason ?? null,
  };
}

export interface IssueCommentShape {
  owner: string;
  repo: string;
  issueNumber: number;
  isPullRequest: boolean;
  id: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
  authorAssociation: AuthorAssociation;
  reactions?: string[];
}

export function issueCommentJson(links: GitHubLinks, comment: IssueCommentShape, app: unknown = null) {
  const repoApi = `${links.api}/repos/${comment.owner}/${comment.repo}`;
  const kind = comment.isPullRequest ? "pull" : "issues";
  return {
    url: `${repoApi}/issues/comments/${comment.id}`,
    html_url: `${links.web}/${comment.owner}/${comment.repo}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${repoApi}/issues/${comment.issueNumber}`,
    id: comment.id,
    node_id: nodeId("IssueComment", comment.id),
    user: userJson(links, comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: comment.authorAssociation,
    body: comment.body,
    reactions: reactionSummary(`${repoApi}/issues/comments/${comment.id}/reactions`, comment.reactions),
    performed_via_github_app: app,
  };
}

export interface ReviewCommentShape {
  owner: string;
  repo: string;
  pullNumber: number;
  id: number;
  reviewId: number;
  body: string;
  user: string;
  path: string;
  line: number | null;
  side: "LEFT" | "RIGHT";
  commitId: string;
  diffHunk: string;
  inReplyToId?: number;
  createdAt: string;
  updatedAt: string;
  authorAssociation: AuthorAssociation;
  reactions?: string[];
}

export function reviewCommentJson(links: GitHubLinks, comment: ReviewCommentShape) {
  const repoApi = `${links.api}/repos/${comment.owner}/${comment.repo}`;
  const self = `${repoApi}/pulls/comments/${comment.id}`;
  const html = `${links.web}/${comment.owner}/${comment.repo}/pull/${comment.pullNumber}#discussion_r${comment.id}`;
  const pullUrl = `${repoApi}/pulls/${comment.pullNumber}`;
  return {
    url: self,
    pull_request_review_id: comment.reviewId,
    id: comment.id,
    node_id: nodeId("PullRequestReviewComment", comment.id),
    diff_hunk: comment.diffHunk,
    path: comment.path,
    position: comment.line,
    original_position: comment.line,
    commit_id: comment.commitId,
    original_commit_id: comment.commitId,
    user: userJson(links, comment.user),
    body: comment.body,
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    html_url: html,
    pull_request_url: pullUrl,
    author_association: comment.authorAssociation,
    _links: { self: { href: self }, html: { href: html }, pull_request: { href: pullUrl } },
    reactions: reactionSummary(`${self}/reactions`, comment.reactions),
    start_line: null,
    original_start_line: null,
    start_side: null,
    line: comment.line,
    original_line: comment.line,
    side: comment.side,
    subject_type: "line",
    ...(comment.inReplyToId === undefined ? {} : { in_reply_to_id: comment.inReplyToId }),
  };
}

export interface PullShape {
  issue: IssueShape & { pullRequest: { draft: boolean; mergedAt: string | null } };
  head: { ref: string; sha: string; repo: RepoShape };
  base: { ref: string; sha: string; repo: RepoShape };
  /** Present on single-PR reads only, as on GitHub. */
  details?: {
    commits: number;
    additions: number;
    deletions: number;
    changedFiles: number;
    reviewComments: number;
    maintainerCanModify: boolean;
  };
}

export function pullJson(links: GitHubLinks, pull: PullShape) {
  const issue = pull.issue;
  const repoApi = `${links.api}/repos/${issue.owner}/${issue.repo}`;
  const api = `${repoApi}/pulls/${issue.number}`;
  const html = `${links.web}/${issue.owner}/${issue.repo}/pull/${issue.number}`;
  const assignees = issue.assignees.map((login) => userJson(links, login));
  const side = (end: PullShape["head"]) => ({
    label: `${end.repo.owner}:${end.ref}`,
    ref: end.ref,
    sha: end.sha,
    user: userJson(links, end.repo.owner, end.repo.ownerType ?? "User"),
    repo: repoJson(links, end.repo),
  });
  const merged = issue.pullRequest.mergedAt !== null;
  return {
    url: api,
    id: issue.id,
    node_id: nodeId("PullRequest", issue.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${repoApi}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    locked: issue.locked ?? false,
    title: issue.title,
    user: userJson(links, issue.user),
    body: issue.body,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: issue.pullRequest.mergedAt,
    merge_commit_sha: null,
    assignee: assignees[0] ?? null,
    assignees,
    requested_reviewers: [],
    requested_teams: [],
    labels: issue.labels.map((label) => labelJson(links, issue.owner, issue.repo, label)),
    milestone: null,
    draft: issue.pullRequest.draft,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${repoApi}/pulls/comments{/number}`,
    comments_url: `${repoApi}/issues/${issue.number}/comments`,
    statuses_url: `${repoApi}/statuses/${pull.head.sha}`,
    head: side(pull.head),
    base: side(pull.base),
    _links: {
      self: { href: api },
      html: { href: html },
      issue: { href: `${repoApi}/issues/${issue.number}` },
      comments: { href: `${repoApi}/issues/${issue.number}/comments` },
      review_comments: { href: `${api}/comments` },
      review_comment: { href: `${repoApi}/pulls/comments{/number}` },
      commits: { href: `${api}/commits` },
      statuses: { href: `${repoApi}/statuses/${pull.head.sha}` },
    },
    author_association: issue.authorAssociation,
    auto_merge: null,
    active_lock_reason: null,
    ...(pull.details
      ? {
          merged,
          mergeable: issue.state === "open" ? true : null,
          rebaseable: issue.state === "open" ? true : null,
          mergeable_state: issue.state === "open" ? "clean" : "unknown",
          merged_by: null,
          comments: issue.comments,
          review_comments: pull.details.reviewComments,
          maintainer_can_modify: pull.details.maintainerCanModify,
          commits: pull.details.commits,
          additions: pull.details.additions,
          deletions: pull.details.deletions,
          changed_files: pull.details.changedFiles,
        }
      : {}),
  };
}

export function installationJson(
  links: GitHubLinks,
  installation: {
    id: number;
    account: string;
    accountType: AccountType;
    appId: number;
    appSlug: string;
    permissions: Record<string, string>;
    events: string[];
  },
) {
  return {
    id: installation.id,
    client_id: `Iv1.${installation.appId.toString(16).padStart(16, "0")}`,
    account: userJson(links, installation.account, installation.accountType),
    repository_selection: "all",
    access_tokens_url: `${links.api}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${links.api}/installation/repositories`,
    html_url: `${links.web}/settings/installations/${installation.id}`,
    app_id: installation.appId,
    app_slug: installation.appSlug,
    target_id: stableId("user", installation.account),
    target_type: installation.accountType,
    permissions: installation.permissions,
    events: installation.events,
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [] as string[],
    suspended_by: null,
    suspended_at: null,
  };
}
