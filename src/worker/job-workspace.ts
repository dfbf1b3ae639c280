// The job's workspace: prepared as soon as its target is known, put away however the job ends.
import type { Logger } from "../logging/logger.js";
import type { Workspace } from "../workspace/index.js";
import type { JobContext } from "./job-context.js";
import type { Target } from "./job-target.js";

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
