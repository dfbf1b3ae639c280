/**
 * Issue routes: issues (pull requests included, as on GitHub), issue comments, labels and
 * reactions on issues, issue comments and review comments.
 */
import { bodyObject, githubError, missingField, notFound, paginate, tokenOf, validationFailed, type Route, type RouteContext } from "./fake-github-http.js";
import { issueFor, renderComment, renderIssue, renderReaction, repoFor, requirePermission } from "./fake-github-render.js";
import {
  addIssueComment,
  addReaction,
  issueComments,
  reactionsOn,
  REACTION_CONTENTS,
  repoKey,
  setIssueState,
  setLabels,
  type CommentRecord,
  type ReactionContent,
  type ReactionSubject,
  type RepoRecord,
} from "./fake-github-state.js";
import { isoTime } from "./github-json.js";

function labelNames(value: unknown): string[] {
  if (!Array.isArray(value)) throw validationFailed([{ resource: "Issue", code: "invalid", field: "labels" }]);
  return value.map((label) => (typeof label === "string" ? label : String((label as { name?: unknown }).name ?? "")));
}

function patchIssue(ctx: RouteContext) {
  const repo = repoFor(ctx);
  requirePermission(ctx, "issues", "write");
  const issue = issueFor(ctx, repo);
  const body = bodyObject(ctx);
  if (body.state !== undefined && body.state !== "open" && body.state !== "closed") {
    throw validationFailed([{ resource: "Issue", code: "invalid", field: "state" }]);
  }
  if (typeof body.title === "string") issue.title = body.title;
  if (body.body !== undefined) issue.body = body.body === null ? null : String(body.body);
  if (body.state === "open" || body.state === "closed") {
    setIssueState(issue, body.state, typeof body.state_reason === "string" ? body.state_reason : null);
  }
  if (body.labels !== undefined) setLabels(repo, issue, labelNames(body.labels));
  if (Array.isArray(body.assignees)) issue.assignees = body.assignees.map(String);
  issue.updatedAt = isoTime();
  return { body: renderIssue(ctx.world, issue) };
}

function commentFor(ctx: RouteContext, repo: RepoRecord): CommentRecord {
  const comment = ctx.world.state.comments.get(Number(ctx.params.comment_id));
  if (!comment || repoKey(comment.owner, comment.repo) !== repoKey(repo.owner, repo.name)) throw notFound();
  return comment;
}

function requireBody(ctx: RouteContext, resource: string): string {
  const body = bodyObject(ctx).body;
  if (typeof body !== "string" || body === "") throw missingField(resource, "body");
  return body;
}

/** Resolves the reaction target in the route, 404 when it does not exist. */
function reactionSubject(ctx: RouteContext, kind: ReactionSubject["kind"]): ReactionSubject {
  const repo = repoFor(ctx);
  if (kind === "issue") {
    const issue = issueFor(ctx, repo);
    return { kind, owner: repo.owner, repo: repo.name, number: issue.number };
  }
  const id = Number(ctx.params.comment_id);
  const store = kind === "issue_comment" ? ctx.world.state.comments : ctx.world.state.reviewComments;
  const comment = store.get(id);
  if (!comment || repoKey(comment.owner, comment.repo) !== repoKey(repo.owner, repo.name)) throw notFound();
  return { kind, owner: repo.owner, repo: repo.name, id };
}

function reactionRoutes(kind: ReactionSubject["kind"], path: string): Route[] {
  return [
    {
      method: "GET",
      path,
      auth: "token",
      handler: (ctx) => {
        const content = ctx.query.get("content");
        const all = reactionsOn(ctx.world.state, reactionSubject(ctx, kind)).filter((r) => !content || r.content === content);
        const page = paginate(all, ctx);
        return { body: page.items.map((r) => renderReaction(ctx.world, r)), headers: page.headers };
      },
    },
    {
      method: "POST",
      path,
      auth: "token",
      handler: (ctx) => {
        const subject = reactionSubject(ctx, kind);
        requirePermission(ctx, kind === "review_comment" ? "pull_requests" : "issues", "write");
        const content = bodyObject(ctx).content;
        if (!REACTION_CONTENTS.includes(content as ReactionContent)) {
          throw validationFailed([{ resource: "Reaction", code: "custom", field: "content", message: "content is not included in the list" }]);
        }
        const { reaction, created } = addReaction(ctx.world.state, subject, content as ReactionContent, tokenOf(ctx).login);
        return { status: created ? 201 : 200, body: renderReaction(ctx.world, reaction) };
      },
    },
    {
      method: "DELETE",
      path: `${path}/{reaction_id}`,
      auth: "token",
      handler: (ctx) => {
        const subject = reactionSubject(ctx, kind);
        const id = Number(ctx.params.reaction_id);
        const state = ctx.world.state;
        const index = state.reactions.findIndex((r) => r.id === id && reactionsOn(state, subject).includes(r));
        if (index < 0) throw notFound();
        state.reactions.splice(index, 1);
        return { status: 204 };
      },
    },
  ];
}

export const issueRoutes: Route[] = [
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{issue_number}",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "issues", "read");
      return { body: renderIssue(ctx.world, issueFor(ctx, repo)) };
    },
  },
  { method: "PATCH", path: "/repos/{owner}/{repo}/issues/{issue_number}", auth: "token", handler: patchIssue },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      const issue = issueFor(ctx, repo);
      const since = ctx.query.get("since");
      const all = issueComments(ctx.world.state, repo.owner, repo.name, issue.number).filter((c) => !since || c.updatedAt >= since);
      const page = paginate(all, ctx);
      return { body: page.items.map((c) => renderComment(ctx.world, c)), headers: page.headers };
    },
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      const issue = issueFor(ctx, repo);
      requirePermission(ctx, issue.pull ? "pull_requests" : "issues", "write");
      const token = tokenOf(ctx);
      if (issue.locked) throw githubError(403, "Unable to create comment because issue is locked.");
      const comment = addIssueComment(ctx.world.state, issue, requireBody(ctx, "IssueComment"), token.login, token.kind === "installation");
      return { status: 201, body: renderComment(ctx.world, comment), headers: { location: renderComment(ctx.world, comment).url } };
    },
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
    auth: "token",
    handler: (ctx) => ({ body: renderComment(ctx.world, commentFor(ctx, repoFor(ctx))) }),
  },
  {
    method: "PATCH",
    path: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "issues", "write");
      const comment = commentFor(ctx, repo);
      comment.body = requireBody(ctx, "IssueComment");
      comment.updatedAt = isoTime();
      return { body: renderComment(ctx.world, comment) };
    },
  },
  {
    method: "DELETE",
    path: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "issues", "write");
      ctx.world.state.comments.delete(commentFor(ctx, repo).id);
      return { status: 204 };
    },
  },
  {
    method: "POST",
    path: "/repos/{owner}/{repo}/issues/{issue_number}/labels",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "issues", "write");
      const issue = issueFor(ctx, repo);
      const body = ctx.body;
      const added = labelNames(Array.isArray(body) ? body : bodyObject(ctx).labels);
      setLabels(repo, issue, [...issue.labels, ...added]);
      return { body: renderIssue(ctx.world, issue).labels };
    },
  },
  {
    method: "DELETE",
    path: "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
    auth: "token",
    handler: (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "issues", "write");
      const issue = issueFor(ctx, repo);
      const name = (ctx.params.name ?? "").toLowerCase();
      if (!issue.labels.some((l) => l.toLowerCase() === name)) throw notFound("Label does not exist");
      issue.labels = issue.labels.filter((l) => l.toLowerCase() !== name);
      return { body: renderIssue(ctx.world, issue).labels };
    },
  },
  ...reactionRoutes("issue", "/repos/{owner}/{repo}/issues/{issue_number}/reactions"),
  ...reactionRoutes("issue_comment", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"),
  ...reactionRoutes("review_comment", "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions"),
];
