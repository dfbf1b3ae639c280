/**
 * Pull request routes, validated against the bare repos the way GitHub validates them: the head
 * branch must exist and be ahead of base, and one head/base pair has at most one open PR.
 */
import { branchSha, diffStats } from "./fake-github-git.js";
import { bodyObject, missingField, notFound, paginate, tokenOf, validationFailed, type Route, type RouteContext } from "./fake-github-http.js";
import { renderPull, renderReviewComment, repoFor, requirePermission } from "./fake-github-render.js";
import { addReviewComment, createIssue, pullsOf, repoKey, reviewComments, setIssueState, type IssueRecord, type RepoRecord } from "./fake-github-state.js";
import { isoTime } from "./github-json.js";

function pullFor(ctx: RouteContext, repo: RepoRecord): IssueRecord {
  const pull = pullsOf(ctx.world.state, repo.owner, repo.name).find((p) => p.number === Number(ctx.params.pull_number));
  if (!pull) throw notFound();
  return pull;
}

/** `owner:branch` names a fork's branch; a bare branch name is in the base repository. */
export function resolveHeadRepo(ctx: RouteContext, base: RepoRecord, head: string): { repo: RepoRecord | undefined; ref: string } {
  const colon = head.indexOf(":");
  if (colon < 0) return { repo: base, ref: head };
  const owner = head.slice(0, colon);
  const ref = head.slice(colon + 1);
  if (owner.toLowerCase() === base.owner.toLowerCase()) return { repo: base, ref };
  const baseName = `${base.owner}/${base.name}`.toLowerCase();
  const fork = [...ctx.world.state.repos.values()].find((r) => r.owner.toLowerCase() === owner.toLowerCase() && r.parent?.toLowerCase() === baseName);
  return { repo: fork, ref };
}

function invalid(field: string) {
  return validationFailed([{ resource: "PullRequest", field, code: "invalid" }]);
}

async function createPull(ctx: RouteContext) {
  const base = repoFor(ctx);
  requirePermission(ctx, "pull_requests", "write");
  const body = bodyObject(ctx);
  if (typeof body.head !== "string" || body.head === "") throw missingField("PullRequest", "head");
  if (typeof body.base !== "string" || body.base === "") throw missingField("PullRequest", "base");
  if (typeof body.title !== "string" || body.title === "") throw missingField("PullRequest", "title");
  const { repo: headRepo, ref: headRef } = resolveHeadRepo(ctx, base, body.head);
  const headSha = headRepo && (await branchSha(ctx.world.git, headRepo.gitDir, headRef));
  if (!headRepo || !headSha) throw invalid("head");
  const baseSha = await branchSha(ctx.world.git, base.gitDir, body.base);
  if (!baseSha) throw invalid("base");
  const label = `${headRepo.owner}:${headRef}`;
  const duplicate = pullsOf(ctx.world.state, base.owner, base.name).find(
    (p) =>
      p.state === "open" &&
      p.pull !== undefined &&
      p.pull.baseRef === body.base &&
      p.pull.head.ref === headRef &&
      repoKey(p.pull.head.owner, p.pull.head.repo) === repoKey(headRepo.owner, headRepo.name),
  );
  if (duplicate) {
    throw validationFailed([{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${label}.` }]);
  }
  if (headRepo === base) {
    const ahead = headSha === baseSha ? 0 : (await diffStats(ctx.world.git, base.gitDir, baseSha, headSha)).commits;
    if (ahead === 0) {
      throw validationFailed([{ resource: "PullRequest", code: "custom", message: `No commits between ${body.base} and ${headRef}` }]);
    }
  }
  const issue = createIssue(ctx.world.state, base, {
    title: body.title,
    body: typeof body.body === "string" ? body.body : null,
    user: tokenOf(ctx).login,
    pull: {
      head: { owner: headRepo.owner, repo: headRepo.name, ref: headRef },
      baseRef: body.base,
      draft: body.draft === true,
      mergedAt: null,
      maintainerCanModify: body.maintainer_can_modify !== false,
    },
  });
  const json = await renderPull(ctx.world, issue, true);
  return { status: 201, body: json, headers: { location: json.url } };
}

async function listPulls(ctx: RouteContext) {
  const repo = repoFor(ctx);
  requirePermission(ctx, "pull_requests", "read");
  const state = ctx.query.get("state") ?? "open";
  const head = ctx.query.get("head");
  const baseRef = ctx.query.get("base");
  const wantedHead = head ? resolveHeadRepo(ctx, repo, head.includes(":") ? head : `${repo.owner}:${head}`) : undefined;
  let pulls = pullsOf(ctx.world.state, repo.owner, repo.name).filter((p) => {
    if (state !== "all" && p.state !== state) return false;
    if (baseRef && p.pull?.baseRef !== baseRef) return false;
    if (wantedHead) {
      if (!wantedHead.repo || p.pull?.head.ref !== wantedHead.ref) return false;
      if (repoKey(p.pull.head.owner, p.pull.head.repo) !== repoKey(wantedHead.repo.owner, wantedHead.repo.name)) return false;
    }
    return true;
  });
  if (ctx.query.get("direction") === "asc") pulls = pulls.reverse();
  const page = paginate(pulls, ctx);
  return { body: await Promise.all(page.items.map((p) => renderPull(ctx.world, p, false))), headers: page.headers };
}

async function patchPull(ctx: RouteContext) {
  const repo = repoFor(ctx);
  requirePermission(ctx, "pull_requests", "write");
  const issue = pullFor(ctx, repo);
  const body = bodyObject(ctx);
  if (body.state !== undefined && body.state !== "open" && body.state !== "closed") throw invalid("state");
  if (typeof body.title === "string") issue.title = body.title;
  if (body.body !== undefined) issue.body = body.body === null ? null : String(body.body);
  if (body.state === "open" || body.state === "closed") setIssueState(issue, body.state);
  if (typeof body.base === "string" && issue.pull) {
    if (!(await branchSha(ctx.world.git, repo.gitDir, body.base))) throw invalid("base");
    issue.pull.baseRef = body.base;
  }
  if (typeof body.maintainer_can_modify === "boolean" && issue.pull) issue.pull.maintainerCanModify = body.maintainer_can_modify;
  issue.updatedAt = isoTime();
  return { body: await renderPull(ctx.world, issue, true) };
}

export const pullRoutes: Route[] = [
  { method: "GET", path: "/repos/{owner}/{repo}/pulls", auth: "token", handler: listPulls },
  { method: "POST", path: "/repos/{owner}/{repo}/pulls", auth: "token", handler: createPull },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/pulls/comments/{comment_id}",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      const comment = ctx.world.state.reviewComments.get(Number(ctx.params.comment_id));
      if (!comment || repoKey(comment.owner, comment.repo) !== repoKey(repo.owner, repo.name)) throw notFound();
      return { body: renderReviewComment(ctx.world, comment) };
    },
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/pulls/{pull_number}",
    auth: "token",
    handler: async (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "pull_requests", "read");
      return { body: await renderPull(ctx.world, pullFor(ctx, repo), true) };
    },
  },
  { method: "PATCH", path: "/repos/{owner}/{repo}/pulls/{pull_number}", auth: "token", handler: patchPull },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/pulls/{pull_number}/comments",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      const pull = pullFor(ctx, repo);
      const page = paginate(reviewComments(ctx.world.state, repo.owner, repo.name, pull.number), ctx);
      return { body: page.items.map((c) => renderReviewComment(ctx.world, c)), headers: page.headers };
    },
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "pull_requests", "write");
      const pull = pullFor(ctx, repo);
      const parent = ctx.world.state.reviewComments.get(Number(ctx.params.comment_id));
      if (!parent || parent.pullNumber !== pull.number || repoKey(parent.owner, parent.repo) !== repoKey(repo.owner, repo.name)) throw notFound();
      const text = bodyObject(ctx).body;
      if (typeof text !== "string" || text === "") throw missingField("PullRequestReviewComment", "body");
      const reply = addReviewComment(ctx.world.state, pull, {
        body: text,
        user: tokenOf(ctx).login,
        path: parent.path,
        line: parent.line,
        side: parent.side,
        commitId: parent.commitId,
        diffHunk: parent.diffHunk,
        inReplyToId: parent.inReplyToId ?? parent.id,
      });
      return { status: 201, body: renderReviewComment(ctx.world, reply) };
    },
  },
];
