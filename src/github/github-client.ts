import type { Octokit } from "@octokit/rest";
import { TackleError } from "../errors/index.js";
import type { SurfaceMarkdown } from "../util/surface-markdown.js";

/** The structural slice of Octokit we use; both ProbotOctokit and @octokit/rest's Octokit fit it. */
export type RestClient = Pick<Octokit, "rest" | "request" | "auth" | "paginate">;

export type ReactionContent = "eyes" | "+1" | "-1" | "rocket" | "confused" | "hooray" | "heart" | "laugh";
export type ReactionTarget = { kind: "issue"; number: number } | { kind: "issue_comment"; id: number } | { kind: "review_comment"; id: number };

export interface RepoRef {
  owner: string;
  name: string;
}

export interface IssueInfo {
  number: number;
  title: string;
  body: string;
  state: string;
  labels: string[];
  isPullRequest: boolean;
  author: string;
}

export interface CommentInfo {
  id: number;
  author: string;
  authorType: string;
  body: string;
  createdAt: string;
}

export interface PullInfo {
  number: number;
  url: string;
  state: string;
  draft: boolean;
  head: { ref: string; repoFullName: string | null; sha: string };
  base: { ref: string };
}

/**
 * Everything Tackle asks of GitHub, over one authenticated Octokit. Only `src/github/` calls Octokit;
 * errors keep Octokit's `status` so callers decide on it, never on message text.
 */
export interface GitHubClient {
  /** `id`: GitHub's numeric id, which stays with the repository through renames and is never reused. */
  getRepo(repo: RepoRef): Promise<{ id: number; defaultBranch: string; private: boolean; fullName: string }>;
  getPermission(repo: RepoRef, user: string): Promise<{ permission: string; roleName?: string }>;
  addReaction(repo: RepoRef, target: ReactionTarget, content: ReactionContent): Promise<void>;
  /** Bodies are SurfaceMarkdown: Tackle's own markup, with outside text made inert (src/util/surface-markdown.ts). */
  createComment(repo: RepoRef, number: number, body: SurfaceMarkdown): Promise<{ id: number; url: string }>;
  updateComment(repo: RepoRef, commentId: number, body: SurfaceMarkdown): Promise<void>;
  deleteComment(repo: RepoRef, commentId: number): Promise<void>;
  getIssue(repo: RepoRef, number: number): Promise<IssueInfo>;
  /** The last `limit` comments, oldest first, and how many older ones exist. */
  listComments(repo: RepoRef, number: number, limit: number): Promise<{ comments: CommentInfo[]; total: number }>;
  /** The first 100 review comments, oldest first. */
  listReviewComments(
    repo: RepoRef,
    number: number,
  ): Promise<Array<{ id: number; author: string; path: string; line: number | null; body: string; createdAt: string }>>;
  getPull(repo: RepoRef, number: number): Promise<PullInfo>;
  /** The open PR whose head is `branch` in the same repository, if any. */
  findOpenPull(repo: RepoRef, branch: string): Promise<PullInfo | null>;
  /** The title is plain text (GitHub does not render a title as Markdown); the body is SurfaceMarkdown. */
  createPull(repo: RepoRef, pull: { head: string; base: string; title: string; body: SurfaceMarkdown; draft: boolean }): Promise<PullInfo>;
  updatePull(repo: RepoRef, number: number, patch: { title?: string; body?: SurfaceMarkdown }): Promise<PullInfo>;
  /** A file's text on `ref` (default branch when omitted), or null when it does not exist. */
  getFile(repo: RepoRef, path: string, ref?: string): Promise<string | null>;
  /** A short-lived token for the host's git push and fetch; never given to the agent. */
  gitToken(): Promise<string>;
}

function statusOf(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "status" in error) {
    const status = (error as { status: unknown }).status;
    return typeof status === "number" ? status : undefined;
  }
  return undefined;
}

/** Wraps an Octokit failure in a typed error; 5xx and 429 are worth retrying, 4xx are not. */
function githubError(action: string, error: unknown): TackleError {
  const status = statusOf(error);
  const retryable = status === undefined || status >= 500 || status === 429;
  const code = status === 401 ? "auth_failed" : status === 404 ? "not_found" : "github_api";
  const detail = error instanceof Error ? error.message : String(error);
  return new TackleError(code, `GitHub ${action} failed${status ? ` (HTTP ${status})` : ""}: ${detail}`, {
    retryable,
    cause: error,
  });
}

async function call<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw githubError(action, error);
  }
}

function toPullInfo(pull: {
  number: number;
  html_url: string;
  state: string;
  draft?: boolean | undefined;
  head: { ref: string; sha: string; repo: { full_name: string } | null };
  base: { ref: string };
}): PullInfo {
  return {
    number: pull.number,
    url: pull.html_url,
    state: pull.state,
    draft: pull.draft ?? false,
    head: { ref: pull.head.ref, sha: pull.head.sha, repoFullName: pull.head.repo?.full_name ?? null },
    base: { ref: pull.base.ref },
  };
}

export function createGitHubClient(octokit: RestClient, options: { gitToken: () => Promise<string> }): GitHubClient {
  const r = (repo: RepoRef) => ({ owner: repo.owner, repo: repo.name });

  return {
    getRepo: (repo) =>
      call("get repository", async () => {
        const { data } = await octokit.rest.repos.get(r(repo));
        return { id: data.id, defaultBranch: data.default_branch, private: data.private, fullName: data.full_name };
      }),

    getPermission: (repo, user) =>
      call("permission check", async () => {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...r(repo), username: user });
        const roleName = (data as { role_name?: string }).role_name;
        return roleName === undefined ? { permission: data.permission } : { permission: data.permission, roleName };
      }),

    addReaction: (repo, target, content) =>
      call("reaction", async () => {
        if (target.kind === "issue") {
          await octokit.rest.reactions.createForIssue({ ...r(repo), issue_number: target.number, content });
        } else if (target.kind === "issue_comment") {
          await octokit.rest.reactions.createForIssueComment({ ...r(repo), comment_id: target.id, content });
        } else {
          await octokit.rest.reactions.createForPullRequestReviewComment({ ...r(repo), comment_id: target.id, content });
        }
      }),

    createComment: (repo, number, body) =>
      call("create comment", async () => {
        const { data } = await octokit.rest.issues.createComment({ ...r(repo), issue_number: number, body });
        return { id: data.id, url: data.html_url };
      }),

    updateComment: (repo, commentId, body) =>
      call("update comment", async () => {
        await octokit.rest.issues.updateComment({ ...r(repo), comment_id: commentId, body });
      }),

    deleteComment: (repo, commentId) =>
      call("delete comment", async () => {
        await octokit.rest.issues.deleteComment({ ...r(repo), comment_id: commentId });
      }),

    getIssue: (repo, number) =>
      call("get issue", async () => {
        const { data } = await octokit.rest.issues.get({ ...r(repo), issue_number: number });
        return {
          number: data.number,
          title: data.title,
          body: data.body ?? "",
          state: data.state,
          labels: data.labels.map((label) => (typeof label === "string" ? label : (label.name ?? ""))).filter(Boolean),
          isPullRequest: data.pull_request !== undefined && data.pull_request !== null,
          author: data.user?.login ?? "ghost",
        };
      }),

    listComments: (repo, number, limit) =>
      call("list comments", async () => {
        const all = await octokit.paginate(octokit.rest.issues.listComments, {
          ...r(repo),
          issue_number: number,
          per_page: 100,
        });
        const kept = all.slice(Math.max(0, all.length - limit));
        return {
          total: all.length,
          comments: kept.map((c) => ({
            id: c.id,
            author: c.user?.login ?? "ghost",
            authorType: c.user?.type ?? "User",
            body: c.body ?? "",
            createdAt: c.created_at,
          })),
        };
      }),

    listReviewComments: (repo, number) =>
      call("list review comments", async () => {
        const { data } = await octokit.rest.pulls.listReviewComments({ ...r(repo), pull_number: number, per_page: 100 });
        return data.map((c) => ({
          id: c.id,
          author: c.user?.login ?? "ghost",
          path: c.path,
          line: c.line ?? null,
          body: c.body,
          createdAt: c.created_at,
        }));
      }),

    getPull: (repo, number) =>
      call("get pull request", async () => {
        const { data } = await octokit.rest.pulls.get({ ...r(repo), pull_number: number });
        return toPullInfo(data);
      }),

    findOpenPull: (repo, branch) =>
      call("find pull request", async () => {
        const { data } = await octokit.rest.pulls.list({ ...r(repo), head: `${repo.owner}:${branch}`, state: "open" });
        const pull = data[0];
        return pull ? toPullInfo(pull) : null;
      }),

    createPull: (repo, pull) =>
      call("create pull request", async () => {
        const { data } = await octokit.rest.pulls.create({ ...r(repo), ...pull });
        return toPullInfo(data);
      }),

    updatePull: (repo, number, patch) =>
      call("update pull request", async () => {
        const { data } = await octokit.rest.pulls.update({ ...r(repo), pull_number: number, ...patch });
        return toPullInfo(data);
      }),

    getFile: async (repo, path, ref) => {
      try {
        const { data } = await octokit.rest.repos.getContent({ ...r(repo), path, ...(ref ? { ref } : {}) });
        if (Array.isArray(data) || data.type !== "file" || !("content" in data)) return null;
        return Buffer.from(data.content, "base64").toString("utf8");
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw githubError(`read ${path}`, error);
      }
    },

    gitToken: options.gitToken,
  };
}
