// The last word for a job the queue gave up on.
import { parseRepoConfig, REPO_CONFIG_PATH } from "../config/index.js";
import { redactingGitHubClient, type GitHubClient, type RepoRef } from "../github/index.js";
import type { JobData } from "../jobs/job-data.js";
import { createRedactor } from "../util/redact.js";
import { commentSink, createTracker } from "./tracker.js";
import type { ProcessJobDeps } from "./job-deps.js";
import { emptyStats } from "./job-ending.js";
import { defaultCommandName } from "./admit-job.js";
import { findTrackingComment, githubSink } from "./tracking-comment-sink.js";
/**
 * The last word for a job the queue gave up on without processJob ending it (its workers kept dying):
 * the tracking comment says so, and how to start again.
 */
export async function reportDeadJob(data: JobData, deps: ProcessJobDeps, reason: string): Promise<void> {
  const log = deps.logger.child({ jobId: data.jobId });
  const redact = createRedactor(deps.settings.secrets);
  const github = redactingGitHubClient(await deps.github(data), redact);
  const commentId = data.trackingCommentId ?? (await findTrackingComment(github, data.repo, data.number, data.jobId, log));
  const commandName = await repoCommandName(github, data.repo, defaultCommandName(deps) ?? "tackle").catch(() => defaultCommandName(deps) ?? "tackle");
  const tracker = createTracker({
    clock: deps.clock,
    logger: log,
    redact,
    sink: commentSink(githubSink(github, data.repo, data.number, Promise.resolve(commentId)), { jobId: data.jobId, clock: deps.clock, commandName }),
  });
  await tracker.flush({
    phase: "failed",
    reason: `the job's workers stopped before it ended (${reason}); comment \`/${commandName} retry\` to run it again`,
    stats: emptyStats(0),
  });
}

/** The command name a repository's comments advertise: its config's `trigger.phrase`, else the App's. */
async function repoCommandName(github: GitHubClient, repo: RepoRef, fallback: string): Promise<string> {
  const { defaultBranch } = await github.getRepo(repo);
  const parsed = parseRepoConfig(await github.getFile(repo, REPO_CONFIG_PATH, defaultBranch));
  return parsed.ok ? (parsed.config.trigger.phrase ?? fallback) : fallback;
}
