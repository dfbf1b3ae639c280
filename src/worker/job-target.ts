// Which branch a job works on: the pull request's own head, or tackle/issue-N.
import type { GitHubClient, RepoRef } from "../github/index.js";
import { issueBranchName, type JobData } from "../jobs/job-data.js";
import { code, md, type SurfaceMarkdown } from "../util/surface-markdown.js";

export type Target =
  | {
      ok: true;
      branch: string;
      baseBranch: string;
      startFrom: "base" | "existing";
      existingPull: { number: number; url: string } | null;
    }
  | { ok: false; reason: string; reply: SurfaceMarkdown };

/** Which branch the job works on: the PR's own head (same repository only), or tackle/issue-N. */
export async function resolveTarget(github: GitHubClient, repo: RepoRef, data: JobData, defaultBranch: Promise<string>): Promise<Target> {
  if (data.isPullRequest) {
    const pull = await github.getPull(repo, data.number);
    const own = `${repo.owner}/${repo.name}`.toLowerCase();
    if (pull.head.repoFullName?.toLowerCase() !== own) {
      return {
        ok: false,
        reason: "the pull request's head is in a fork",
        reply: md`Tackle can't push to this pull request: its branch lives in the fork ${code(pull.head.repoFullName ?? "(deleted)")}, \
and the App's token can only push to this repository. Open an issue instead and Tackle will propose its own PR.`,
      };
    }
    return {
      ok: true,
      branch: pull.head.ref,
      baseBranch: pull.base.ref,
      startFrom: "existing",
      existingPull: { number: pull.number, url: pull.url },
    };
  }
  const branch = issueBranchName(data.number);
  const [open, baseBranch] = await Promise.all([github.findOpenPull(repo, branch), defaultBranch]);
  return {
    ok: true,
    branch,
    baseBranch,
    startFrom: open ? "existing" : "base",
    existingPull: null,
  };
}
