/**
 * Turns the fake's records into GitHub JSON, and answers the access questions every route asks
 * (can this token see this repository, does it hold this permission).
 */
import { branchSha, diffStats, fetchRef, git, resolveCommit } from "./fake-github-git.js";
import { githubError, notFound, tokenOf, type RouteContext, type World } from "./fake-github-http.js";
import {
  authorAssociation,
  findIssue,
  findRepo,
  issueComments,
  reactionsOn,
  reviewComments,
  type CommentRecord,
  type IssueRecord,
  type PermissionLevel,
  type ReactionRecord,
  type RepoRecord,
  type ReviewCommentRecord,
  type TokenRecord,
} from "./fake-github-state.js";
import { issueCommentJson, issueJson, nodeId, pullJson, repoJson, reviewCommentJson, userJson, type IssueShape, type PullShape } from "./github-json.js";

export function appJson(world: World) {
  const { app, links } = world;
  return {
    id: app.id,
    slug: app.slug,
    client_id: `Iv1.${app.id.toString(16).padStart(16, "0")}`,
    node_id: nodeId("App", app.id),
    owner: userJson(links, app.owner, "Organization"),
    name: app.name,
    description: app.description ?? "Fake GitHub App",
    external_url: `${links.web}/apps/${app.slug}`,
    html_url: `${links.web}/apps/${app.slug}`,
    created_at: "2024-01-01T00:00:00Z",
    updated_at: "2024-01-01T00:00:00Z",
    permissions: app.permissions,
    events: app.events,
    installations_count: world.state.installations.size,
  };
}

export function tokenCanSee(token: TokenRecord, world: World, repo: RepoRecord): boolean {
  if (token.kind === "static") return true;
  const installation = token.installationId === undefined ? undefined : world.state.installations.get(token.installationId);
  if (!installation || installation.id !== repo.installationId) return false;
  return token.repositories === undefined || token.repositories.includes(repo.name.toLowerCase());
}

/** The repository named by the route, or GitHub's 404 when it is missing or hidden from the token. */
export function repoFor(ctx: RouteContext): RepoRecord {
  const repo = findRepo(ctx.world.state, ctx.params.owner ?? "", ctx.params.repo ?? "");
  if (!repo || !tokenCanSee(tokenOf(ctx), ctx.world, repo)) throw notFound();
  return repo;
}

export function requirePermission(ctx: RouteContext, scope: string, level: PermissionLevel): void {
  const granted = tokenOf(ctx).permissions[scope];
  if (granted === "write" || granted === level) return;
  throw githubError(403, "Resource not accessible by integration");
}

export function issueFor(ctx: RouteContext, repo: RepoRecord, param = "issue_number"): IssueRecord {
  const issue = findIssue(ctx.world.state, repo.owner, repo.name, Number(ctx.params[param]));
  if (!issue) throw notFound();
  return issue;
}

export function issueShape(world: World, issue: IssueRecord): IssueShape {
  const repo = findRepo(world.state, issue.owner, issue.repo);
  return {
    owner: issue.owner,
    repo: issue.repo,
    number: issue.number,
    id: issue.id,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    stateReason: issue.stateReason,
    labels: issue.labels.map((name) => repo?.labels.get(name.toLowerCase()) ?? { name }),
    user: issue.user,
    assignees: issue.assignees,
    locked: issue.locked,
    comments: issueComments(world.state, issue.owner, issue.repo, issue.number).length,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    closedAt: issue.closedAt,
    authorAssociation: authorAssociation(repo, issue.user),
    reactions: reactionsOn(world.state, { kind: "issue", owner: issue.owner, repo: issue.repo, number: issue.number }).map((r) => r.content),
    ...(issue.pull ? { pullRequest: { draft: issue.pull.draft, mergedAt: issue.pull.mergedAt } } : {}),
  };
}

export function renderIssue(world: World, issue: IssueRecord) {
  return issueJson(world.links, issueShape(world, issue));
}

export function renderComment(world: World, comment: CommentRecord) {
  const repo = findRepo(world.state, comment.owner, comment.repo);
  const issue = findIssue(world.state, comment.owner, comment.repo, comment.issueNumber);
  const reactions = reactionsOn(world.state, { kind: "issue_comment", owner: comment.owner, repo: comment.repo, id: comment.id });
  return issueCommentJson(
    world.links,
    {
      ...comment,
      isPullRequest: Boolean(issue?.pull),
      authorAssociation: authorAssociation(repo, comment.user),
      reactions: reactions.map((r) => r.content),
    },
    comment.viaApp ? appJson(world) : null,
  );
}

export function renderReviewComment(world: World, comment: ReviewCommentRecord) {
  const repo = findRepo(world.state, comment.owner, comment.repo);
  const reactions = reactionsOn(world.state, { kind: "review_comment", owner: comment.owner, repo: comment.repo, id: comment.id });
  return reviewCommentJson(world.links, {
    ...comment,
    authorAssociation: authorAssociation(repo, comment.user),
    reactions: reactions.map((r) => r.content),
  });
}

export function renderReaction(world: World, reaction: ReactionRecord) {
  return {
    id: reaction.id,
    node_id: nodeId("Reaction", reaction.id),
    user: userJson(world.links, reaction.user),
    content: reaction.content,
    created_at: reaction.createdAt,
  };
}

export function renderRepo(world: World, repo: RepoRecord) {
  return {
    ...repoJson(world.links, repo),
    ...(repo.parent ? { parent: parentJson(world, repo.parent), source: parentJson(world, repo.parent) } : {}),
  };
}

function parentJson(world: World, fullName: string) {
  const [owner = "", name = ""] = fullName.split("/");
  const parent = findRepo(world.state, owner, name);
  return parent ? repoJson(world.links, parent) : null;
}

/**
 * A pull request as GitHub serves it. Head and base shas are read live from the bare repos, and
 * `refs/pull/N/head` is kept in the base repo so clients can fetch a fork's head as on GitHub.
 */
export async function renderPull(world: World, issue: IssueRecord, withDetails: boolean) {
  const pull = issue.pull;
  const base = findRepo(world.state, issue.owner, issue.repo);
  const head = pull ? findRepo(world.state, pull.head.owner, pull.head.repo) : undefined;
  if (!pull || !base || !head) throw notFound();
  const pullRef = `refs/pull/${issue.number}/head`;
  const headSha = (await branchSha(world.git, head.gitDir, pull.head.ref)) ?? (await resolveCommit(world.git, base.gitDir, pullRef)) ?? "";
  const baseSha = (await branchSha(world.git, base.gitDir, pull.baseRef)) ?? "";
  if (headSha && (await resolveCommit(world.git, base.gitDir, pullRef)) !== headSha) {
    if (head === base) await git(world.git, base.gitDir, ["update-ref", pullRef, headSha]);
    else await fetchRef(world.git, base.gitDir, head.gitDir, headSha, pullRef);
  }
  const shape = issueShape(world, issue);
  let details: PullShape["details"];
  if (withDetails) {
    const stats = headSha && baseSha ? await diffStats(world.git, base.gitDir, baseSha, headSha) : { commits: 0, additions: 0, deletions: 0, changedFiles: 0 };
    details = {
      ...stats,
      reviewComments: reviewComments(world.state, issue.owner, issue.repo, issue.number).length,
      maintainerCanModify: pull.maintainerCanModify,
    };
  }
  return pullJson(world.links, {
    issue: { ...shape, pullRequest: { draft: pull.draft, mergedAt: pull.mergedAt } },
    head: { ref: pull.head.ref, sha: headSha, repo: head },
    base: { ref: pull.baseRef, sha: baseSha, repo: base },
    ...(details ? { details } : {}),
  });
}
