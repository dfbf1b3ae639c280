import type { IssuePort, IssueSnapshot, PublishApproval, PullRequestRequest, PullRequestResult, PullsPort } from "../agent/ports.js";
import { checkPublishedChange, type PolicyConfig } from "../agent/tools/index.js";
import { TackleError } from "../errors/index.js";
import type { GitHubClient, RepoRef } from "../github/index.js";
import type { IssueThread } from "../jobs/job-data.js";
import type { Workspace } from "../workspace/index.js";
import { createTrustCheck, readThread } from "./issue-thread.js";

/**
 * GetIssue / ReportToIssue over GitHub, bound to one issue or PR. `github` is the job's redacting
 * client (redactingGitHubClient), which masks what is posted.
 */
export function githubIssuePort(options: {
  github: GitHubClient;
  repo: RepoRef;
  number: number;
  /** The thread frozen at trigger time; without one, GetIssue reads it live. */
  thread?: IssueThread | undefined;
  /** Bots whose comments count as trusted (the repo config's `allowed_bots`). @defaultValue [] */
  allowedBots?: readonly string[];
}): IssuePort {
  const { github, repo, number } = options;
  const isTrusted = createTrustCheck(github, repo, options.allowedBots ?? []);
  return {
    get: (): Promise<IssueSnapshot> => readThread({ github, repo, number, thread: options.thread, isTrusted }),
    async report(body) {
      const comment = await github.createComment(repo, number, body);
      return { url: comment.url };
    },
  };
}

export function ensureFixesLine(body: string, issueNumber: number): string {
  const pattern = new RegExp(`\\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\\s+#${issueNumber}\\b`, "i");
  if (pattern.test(body)) return body;
  return `${body.trim()}\n\nFixes #${issueNumber}`.trim();
}

/**
 * create_pull_request over GitHub: the host checks the branch's diff against the policy, pushes with
 * a short-lived token the agent never sees, then creates the PR or updates the open one. `github` is
 * the job's redacting client, which masks the title and body.
 */
export function githubPullsPort(options: {
  github: GitHubClient;
  repo: RepoRef;
  workspace: Workspace;
  policy: PolicyConfig;
  /** The issue to close, or null when working on an existing PR's head. */
  issueNumber: number | null;
  /** The PR this job works on (its head branch), if any. */
  existingPull: { number: number; url: string } | null;
}): PullsPort {
  const { github, repo, workspace } = options;
  return {
    async createOrUpdate(request: PullRequestRequest, signal?: AbortSignal, approve?: PublishApproval): Promise<PullRequestResult> {
      const ahead = await workspace.commitsAhead();
      if (ahead === 0) {
        throw new TackleError("push_refused", "there are no commits on this branch yet; commit with git_commit first");
      }
      await workspace.push({
        token: await github.gitToken(),
        verify: (change) => checkPublishedChange(options.policy, change),
        approve,
        ...(signal ? { signal } : {}),
      });

      if (options.existingPull) {
        return {
          number: options.existingPull.number,
          url: options.existingPull.url,
          created: false,
          message: `pushed ${ahead} commit(s) to the pull request's branch ${workspace.branch}: ${options.existingPull.url}`,
        };
      }
      const { title } = request;
      const body = options.issueNumber === null ? request.body : ensureFixesLine(request.body, options.issueNumber);
      const open = await github.findOpenPull(repo, workspace.branch);
      if (open) {
        await github.updatePull(repo, open.number, { title, body });
        return { number: open.number, url: open.url, created: false, message: `updated pull request ${open.url}` };
      }
      try {
        const pull = await github.createPull(repo, {
          head: workspace.branch,
          base: request.base ?? workspace.baseBranch,
          title,
          body,
          draft: request.draft,
        });
        return { number: pull.number, url: pull.url, created: true, message: `opened pull request ${pull.url}` };
      } catch (error) {
        // Another attempt of this job may have opened it in between: GitHub answers 422; use that PR.
        const raced = await github.findOpenPull(repo, workspace.branch);
        if (raced) return { number: raced.number, url: raced.url, created: false, message: `updated pull request ${raced.url}` };
        throw error;
      }
    },
  };
}
