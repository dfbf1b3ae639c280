// The job's opening phase: its client, redactor, tracking comment and permission cache (openJob), and the reads it starts at once (readJobInputs).
import { parseRepoConfig, REPO_CONFIG_PATH } from "../config/index.js";
import { TackleError, errorMessage, isTackleError } from "../errors/index.js";
import { createAccessCache, redactingGitHubClient, type AccessOf, type GitHubClient, type ReactionTarget, type RepoRef } from "../github/index.js";
import type { JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import { createRedactor, type Redactor } from "../util/redact.js";
import { startJobRecording, type JobRecording } from "./job-recording.js";
import type { CommentWriter } from "./tracker.js";

import type { ProcessJobDeps } from "./job-deps.js";
import { resolveTarget, type Target } from "./job-target.js";
import { githubSink, resolveTrackingComment } from "./tracking-comment-sink.js";
import { INSTRUCTION_FILES, instructionFilesOf } from "./repo-checks.js";

export function reactionTarget(data: JobData): ReactionTarget {
  const { commentId, commentKind } = data.trigger;
  if (commentId !== undefined && commentKind === "review_comment") return { kind: "review_comment", id: commentId };
  if (commentId !== undefined && commentKind === "issue") return { kind: "issue_comment", id: commentId };
  return { kind: "issue", number: data.number };
}

/** The instruction files on GitHub at `ref`, read at once. */
async function readInstructionFiles(github: GitHubClient, repo: RepoRef, ref: string) {
  return instructionFilesOf(await Promise.all(INSTRUCTION_FILES.map((filePath) => github.getFile(repo, filePath, ref))));
}

/** What every phase of one job works with, built once when the job starts. */
export interface JobContext {
  data: JobData;
  deps: ProcessJobDeps;
  signal: AbortSignal;
  repo: RepoRef;
  log: Logger;
  /** The job's redacting client: every GitHub write goes through it. */
  github: GitHubClient;
  redact: Redactor;
  startedAt: number;
  /** The tracking comment's writer; its first write waits for whoever posts the comment. */
  comment: CommentWriter;
  /** The job store's record of this run, when the process has a store. */
  recording: JobRecording | undefined;
  /** The job's one permission cache: every trust check of the job asks it. */
  accessOf: AccessOf;
}

/** What the job reads from GitHub before the agent starts, all started at once. */
export interface JobInputs {
  defaultBranch: Promise<string>;
  /** The repository's numeric id, as GitHub answers for its name now: what its memory is keyed by. */
  repoId: Promise<number>;
  issue: Promise<IssueDetails>;
  config: Promise<ReturnType<typeof parseRepoConfig>>;
  instructionFiles: Promise<Array<{ path: string; content: string }>>;
  target: Promise<Target>;
}

export type IssueDetails = Awaited<ReturnType<GitHubClient["getIssue"]>>;

/** The error with its message and stack through the job's redactor; its code and retryable flag kept, the original as its cause. */
export function maskedError(error: unknown, redact: Redactor): Error {
  const message = redact(errorMessage(error));
  const masked = isTackleError(error)
    ? new TackleError(error.code, message, { retryable: error.retryable, cause: error })
    : new Error(message, { cause: error });
  const stack = error instanceof Error ? error.stack : undefined;
  masked.stack = stack === undefined ? `${masked.name}: ${message}` : redact(stack);
  return masked;
}

/** The job's client, redactor and tracking comment; the comment is resolved in the background. */
export async function openJob(data: JobData, deps: ProcessJobDeps, signal: AbortSignal, attempt: number): Promise<JobContext> {
  const startedAt = deps.clock();
  const repo: RepoRef = data.repo;
  const log = deps.logger.child({ jobId: data.jobId, repo: `${repo.owner}/${repo.name}`, issue: data.number });
  const client = await deps.github(data);
  const gitToken = await client.gitToken();
  const redact = createRedactor([...deps.settings.secrets, gitToken]);
  const github = redactingGitHubClient(client, redact);
  // A rerun of this job (retry, or another worker after a crash) edits the comment the first attempt posted.
  const commentId =
    data.trackingCommentId !== undefined ? Promise.resolve(data.trackingCommentId) : resolveTrackingComment(github, data, deps.claims, signal, log);
  // The webhook side acknowledges what it enqueues (👀 + the queued comment); a job that posts its
  // own comment (the Action, a job enqueued without one) adds the 👀 too.
  void commentId
    .then(async (id) => {
      if (id === null) await github.addReaction(repo, reactionTarget(data), "eyes");
    })
    .catch((error: unknown) => log.warn({ err: errorMessage(error) }, "could not add the 👀 reaction"));
  const comment = githubSink(github, repo, data.number, commentId, (id) => {
    void deps.claims?.setComment(data.jobId, id).catch((error: unknown) => log.warn({ err: errorMessage(error) }, "could not record the tracking comment"));
  });
  const recording =
    deps.jobStore === undefined
      ? undefined
      : startJobRecording({ store: deps.jobStore, data, attempt, clock: deps.clock, log, redact, dashboardUrl: deps.settings.dashboardUrl ?? null });
  return { data, deps, signal, repo, log, github, redact, startedAt, comment, recording, accessOf: createAccessCache(github, repo) };
}

export function readJobInputs(job: JobContext): JobInputs {
  const { github, repo, data } = job;
  const repository = github.getRepo(repo);
  const defaultBranch = repository.then((info) => info.defaultBranch);
  // The target is asked first and beside the repository read: the workspace waits for it alone.
  const target = resolveTarget(github, repo, data, defaultBranch);
  const inputs: JobInputs = {
    defaultBranch,
    repoId: repository.then((info) => info.id),
    target,
    issue: github.getIssue(repo, data.number),
    config: defaultBranch.then(async (branch) => parseRepoConfig(await github.getFile(repo, REPO_CONFIG_PATH, branch))),
    instructionFiles: defaultBranch.then((branch) => readInstructionFiles(github, repo, branch)),
  };
  for (const promise of Object.values(inputs) as Array<Promise<unknown>>) promise.catch(() => undefined);
  return inputs;
}
