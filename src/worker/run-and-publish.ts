// The run and publish phases: the agent's session with the job's ports, then what it leaves is committed and published.
import path from "node:path";
import type { PublishApproval, SessionState } from "../agent/ports.js";
import type { RepoConfig } from "../config/index.js";
import { TackleError, errorMessage, isTackleError } from "../errors/index.js";
import { createTrustCheck } from "../github/index.js";
import { createDestinationRules, createHttpClient, createMcpPort } from "../net/index.js";
import { formatRepoKey } from "../workspace/index.js";
import type { Spend } from "../agent/spend.js";
import { createMemoryPort } from "./memory-port.js";
import type { JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import { sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";
import type { Workspace } from "../workspace/index.js";
import { githubIssuePort, githubPullsPort } from "./github-ports.js";
import { createGitHubApprovalHandler } from "./approval-handler.js";
import { policyConfigOf, runAgentSession, type SessionInput } from "./run-agent-session.js";
import { observedModels, sessionObservers } from "./job-metrics.js";
import type { Tracker } from "./tracker.js";
import { checkRepoExtensions, commitLeftovers, webFetcherFor } from "./repo-checks.js";

import type { JobContext } from "./job-context.js";
import { emptyStats, finalState, type FinalState } from "./job-ending.js";
import { extensionProblemComment, type Admission } from "./admit-job.js";
/** The agent's session, then what it leaves published; returns the job's final state. */
export async function runAndPublish(
  job: JobContext,
  admitted: Extract<Admission, { ok: true }>,
  workspace: Workspace,
  tracker: Tracker,
  attempt: { attempt: number; maxAttempts: number },
  spend: Spend,
): Promise<FinalState> {
  const { deps, data, repo, github, log, redact, startedAt, signal } = job;
  const { config, issue, modelName, target } = admitted;
  const extensions = await checkRepoExtensions(workspace, { model: deps.settings.defaultModel, allowedModels: deps.settings.allowedModels });
  if (extensions.warnings.length > 0) log.warn({ warnings: extensions.warnings }, "some repository agents or skills were skipped");
  const { problems } = extensions;
  if (problems.length > 0) {
    await github.createComment(repo, data.number, extensionProblemComment(problems, admitted.commandName ?? "tackle", redact));
    return {
      phase: "failed",
      reason: `invalid agent or skill files on the default branch: ${problems.length} problem(s), listed in the comment below`,
      stats: emptyStats(deps.clock() - startedAt),
    };
  }
  const pulls = githubPullsPort({
    github,
    redact,
    repo,
    workspace,
    policy: policyConfigOf(config),
    issueNumber: data.isPullRequest ? null : data.number,
    existingPull: target.existingPull,
  });
  const metrics = deps.metrics;
  // The trigger's time is the webhook side's: the first request is timed from the delivery, queue wait included.
  const models = metrics
    ? observedModels(deps.model, metrics, { since: Date.parse(data.enqueuedAt), clock: deps.clock, reportFirst: attempt.attempt === 1 })
    : deps.model;
  const { result, state, subagents, subagentTurns, memoryWrites, hookDenials, backgroundJobs, mcpUsage, mcpFailures, approvePublish } = await runAgentSession({
    jobId: data.jobId,
    workspace,
    issue: githubIssuePort({ github, redact, repo, number: data.number, thread: data.thread, isTrusted: createTrustCheck(job.accessOf, config.allowed_bots) }),
    pulls,
    config,
    model: models(modelName),
    modelName,
    modelFor: models,
    spend,
    extensions,
    repoFullName: `${repo.owner}/${repo.name}`,
    task: {
      // What the model reads of the thread is what it was at trigger time, stripped of hidden text.
      title: data.thread?.title ?? sanitizeUntrustedText(issue.title),
      body: data.thread?.body ?? sanitizeUntrustedText(issue.body),
      kind: data.trigger.kind,
      actor: data.trigger.actor,
      number: data.number,
      isPullRequest: data.isPullRequest,
      ...(data.trigger.instructions ? { instructions: data.trigger.instructions } : {}),
    },
    instructionFiles: admitted.instructionFiles,
    tracker,
    transcriptDir: path.join(deps.settings.home, "transcripts"),
    redact,
    clock: deps.clock,
    startedAt,
    signal,
    logger: log,
    ...(await sessionExtras(job, admitted, workspace)),
    ...(metrics ? { observers: sessionObservers(metrics, `${repo.owner}/${repo.name}`) } : {}),
    ...(job.recording === undefined ? {} : { artifacts: job.recording.artifacts, onTranscriptLine: job.recording.onTranscriptLine }),
    ...(deps.approvals === undefined
      ? {}
      : {
          approval: createGitHubApprovalHandler({
            approvals: deps.approvals,
            github,
            repo,
            number: data.number,
            jobId: data.jobId,
            timeoutMs: deps.settings.approvalTimeoutMs ?? config.approval_timeout_minutes * 60_000,
            redact,
            logger: log,
            commandName: admitted.commandName ?? "tackle",
          }),
        }),
  });
  const { url: pullUrl, refused } = await publishLeftovers({ workspace, pulls, state, issueTitle: issue.title, data, config, log, approvePublish, signal });
  if (result.reason === "model_error" && result.retryable && attempt.attempt < attempt.maxAttempts) {
    // The work so far is pushed (publishLeftovers); the next attempt continues on the same branch.
    throw new TackleError("model_api", result.error ?? "the model API failed", { retryable: true });
  }
  const final = finalState(result, state, pullUrl, deps.clock() - startedAt, workspace.sandboxed, subagentTurns);
  const artifacts = job.recording?.artifacts.list() ?? [];
  const ending = {
    ...final,
    ...(subagents.length > 0 ? { subagents } : {}),
    ...(memoryWrites.length > 0 ? { memoryWrites } : {}),
    ...(hookDenials.length > 0 ? { hookDenials } : {}),
    ...(backgroundJobs.length > 0 ? { backgroundJobs } : {}),
    ...(mcpUsage.length > 0 ? { mcpUsage } : {}),
    ...(mcpFailures.length > 0 ? { mcpFailures } : {}),
    ...(artifacts.length > 0 ? { artifacts } : {}),
  };
  // Work the host refused to publish is a failure, whatever the agent said: never "no changes needed".
  return refused && !pullUrl ? { ...ending, phase: "failed", reason: `nothing was published: ${refused}` } : ending;
}

export type SessionExtras = Pick<SessionInput, "memory" | "web" | "mcp" | "untrustedAuthors">;

/**
 * The session's ports beyond the core: the repository's memory (unless its config turns it off),
 * WebFetch's fetcher (unless an allow-list turns it off), its MCP servers (HTTP ones under WebFetch's
 * rules, stdio ones in the workspace's sandbox), and who in the thread lacks write access.
 */
export async function sessionExtras(job: JobContext, admitted: Extract<Admission, { ok: true }>, workspace: Workspace): Promise<SessionExtras> {
  const { deps, data, repo, redact, signal } = job;
  const { config, mcpServers } = admitted;
  const about = { issueAuthor: admitted.issue.author, repoId: admitted.repoId };
  const extras: SessionExtras = {
    untrustedAuthors: untrustedAuthors(job, config, about.issueAuthor),
  };
  if (deps.memory !== undefined && config.memory) {
    // By id: a name is freed at once on a rename or a deletion, and a new repository under it is another one.
    const { store, host } = deps.memory;
    // The name is for `tackle memory --repo owner/name` only: a store that cannot note it costs the job nothing.
    await store
      .recordName(host, `${repo.owner}/${repo.name}`, about.repoId)
      .catch((error: unknown) => job.log.warn({ err: error }, "could not note the repository's name for its memory"));
    extras.memory = createMemoryPort({
      store,
      repoKey: formatRepoKey({ host, id: about.repoId }),
      jobId: data.jobId,
      actor: data.trigger.actor,
      redact,
      clock: deps.clock,
    });
  }
  const web = deps.web;
  const fetcher = webFetcherFor({ operator: web, config, signal });
  if (fetcher !== undefined) extras.web = fetcher;
  if (mcpServers.length > 0) {
    // HTTP servers are reached under WebFetch's rules; with WebFetch off (an empty list), none is reachable.
    const rules = createDestinationRules(web?.allow ?? [], config.web_fetch.allow);
    const exec = workspace.exec;
    extras.mcp = createMcpPort({
      servers: mcpServers,
      // The job's signal reaches every exchange: a job that ends leaves no socket reading behind it.
      http: createHttpClient({ rules, signal }),
      // Stdio servers run as the job's own processes: its sandbox, its loopback-only network, killed with its workspace.
      ...(exec.start === undefined ? {} : { start: exec.start.bind(exec) }),
    });
  }
  return extras;
}

/** Authors in the job's thread (the issue's too) without write access: their text may steer what the agent keeps. */
export async function untrustedAuthors(job: JobContext, config: RepoConfig, issueAuthor: string): Promise<string[]> {
  const { data } = job;
  const untrusted = new Set<string>();
  for (const comment of data.thread?.comments ?? []) if (!comment.trusted) untrusted.add(comment.author);
  for (const comment of data.thread?.reviewComments ?? []) if (!comment.trusted) untrusted.add(comment.author);
  if (issueAuthor.toLowerCase() !== data.trigger.actor.toLowerCase()) {
    const trusted = await createTrustCheck(job.accessOf, config.allowed_bots)(issueAuthor);
    if (!trusted) untrusted.add(issueAuthor);
  }
  return [...untrusted].sort();
}

/** No work is lost: uncommitted changes are committed and a branch with commits gets its draft PR. */
export async function publishLeftovers(options: {
  workspace: Workspace;
  pulls: ReturnType<typeof githubPullsPort>;
  state: SessionState;
  issueTitle: string;
  data: JobData;
  config: RepoConfig;
  log: Logger;
  /** The session's way to ask a maintainer when the host's check holds the commit back. */
  approvePublish: PublishApproval;
  signal: AbortSignal;
}): Promise<{ url: string | null; refused: string | null }> {
  const { workspace, state } = options;
  const dirty = await commitLeftovers(workspace, options.data.number);
  const published = state.pullRequest?.url ?? null;
  if (published && !dirty) return { url: published, refused: null };
  if ((await workspace.commitsAhead()) === 0) return { url: published, refused: null };
  try {
    const summary = state.done?.summary ?? "The agent stopped before opening a pull request; this draft keeps its work.";
    const request = {
      title: published ? options.issueTitle : `Draft: ${options.issueTitle}`,
      body: summary,
      draft: published ? options.config.draft_pr : true,
    };
    // The push itself is not tied to the job's signal (a stopped job's work is still pushed); the
    // question is: a stopped job does not wait for an answer.
    const approve: PublishApproval = (question) => options.approvePublish(question, options.signal);
    const result = await options.pulls.createOrUpdate(request, undefined, approve);
    return { url: result.url, refused: null };
  } catch (error) {
    options.log.warn({ err: error }, "could not publish the leftover work");
    if (isTackleError(error, "push_refused")) return { url: published, refused: errorMessage(error) };
    throw error;
  }
}
