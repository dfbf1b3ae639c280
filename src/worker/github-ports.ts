import type { IssuePort, IssueSnapshot, PublishApproval, PullRequestRequest, PullRequestResult, PullsPort } from "../agent/ports.js";
import { checkPublishedChange, type PolicyConfig } from "../agent/tools/index.js";
import { TackleError } from "../errors/index.js";
import { readThread, type GitHubClient, type RepoRef, type TrustCheck } from "../github/index.js";
import type { IssueThread } from "../jobs/job-data.js";
import { agentProse, md, type SurfaceMarkdown } from "../util/surface-markdown.js";
import type { Workspace } from "../workspace/index.js";

/**
 * GetIssue / ReportToIssue over GitHub, bound to one issue or PR. The agent's words are masked with
 * the job's redactor, then made its prose (`agentProse`: no link with its own text, no image, HTML or
 * ping); `github` is the job's redacting client, which masks what is posted once more.
 */
export function githubIssuePort(options: {
  github: GitHubClient;
  /** The job's redactor: applied before the prose is escaped, which could split a secret. */
  redact: (text: string) => string;
  repo: RepoRef;
  number: number;
  /** The thread frozen at trigger time; without one, GetIssue reads it live. */
  thread?: IssueThread | undefined;
  /** Whose later comments count (the job's one trust check, over its one permission cache). */
  isTrusted: TrustCheck;
}): IssuePort {
  const { github, repo, number, isTrusted } = options;
  return {
    get: (): Promise<IssueSnapshot> => readThread({ github, repo, number, thread: options.thread, isTrusted }),
    async report({ prose, footer }) {
      const body = agentProse(options.redact(prose));
      const comment = await github.createComment(repo, number, footer === undefined ? body : md`${body}\n\n${footer}`);
      return { url: comment.url };
    },
  };
}

/**
 * A PR body: the agent's prose (already masked), and the host's "Fixes #N" after it when the prose
 * does not close the issue already. The keywords are looked for in the agent's text, which keeps
 * same-repository references live.
 */
export function ensureFixesLine(prose: string, issueNumber: number): SurfaceMarkdown {
  const pattern = new RegExp(`\\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\\s+#${issueNumber}\\b`, "i");
  const body = agentProse(prose.trim());
  if (pattern.test(prose)) return body;
  return prose.trim() === "" ? md`Fixes #${issueNumber}` : md`${body}\n\nFixes #${issueNumber}`;
}

/**
 * create_pull_request over GitHub: the host checks the branch's diff against the policy, pushes with
 * a short-lived token the agent never sees, then creates the PR or updates the open one. The body is
 * the agent's prose (masked, then `agentProse`) and the host's "Fixes #N"; `github` is the job's
 * redacting client, which masks the title and body once more.
 */
export function githubPullsPort(options: {
  github: GitHubClient;
  /** The job's redactor: applied before the prose is escaped, which could split a secret. */
  redact: (text: string) => string;
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
      const prose = options.redact(request.body);
      const body = options.issueNumber === null ? agentProse(prose) : ensureFixesLine(prose, options.issueNumber);
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
