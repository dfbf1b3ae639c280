// Which branch a job works on, and the workspace prepared for it (started as soon as the target is known).
import type { GitHubClient, RepoRef } from "../github/index.js";
import { issueBranchName, type JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import type { Workspace } from "../workspace/index.js";
import { code, md, type SurfaceMarkdown } from "../util/surface-markdown.js";

import type { JobContext } from "./job-context.js";
export function prepareWorkspace(job: JobContext, target: Extract<Target, { ok: true }>, defaultBranch: string, signal: AbortSignal): Promise<Workspace> {
  const { deps, repo, github, data } = job;
  return deps.workspaces.prepare({
    jobId: data.jobId,
    remoteUrl: deps.settings.gitUrl(repo.owner, repo.name),
    repoKey: `${deps.settings.gitHost}/${repo.owner}/${repo.name}`,
    token: () => github.gitToken(),
    branch: target.branch,
    baseBranch: target.baseBranch,
    // Agents and skills come from the default branch's commit, whatever branch the job works on.
    defaultBranch,
    startFrom: target.startFrom,
    // A PR's own head may be pushed (new commits, never forced); otherwise only tackle/… branches.
    ...(target.existingPull ? { allowedPushBranches: [target.branch] } : {}),
    signal,
    sandbox: deps.settings.sandbox,
    // A burst of triggers on one repository fetches its mirror once.
    freshAfter: Date.parse(data.enqueuedAt),
  });
}

/** A workspace started for a job that ended early (or failed) is removed once its preparation settles. */
export async function disposeWorkspace(start: Promise<Workspace | null>, log: Logger): Promise<void> {
  const workspace = await start.catch(() => null);
  await workspace?.dispose().catch((error: unknown) => log.warn({ err: error }, "workspace cleanup failed"));
}

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
