import path from "node:path";
import type { AgentResult } from "../agent/index.js";
import type { ModelClient } from "../agent/model-client.js";
import type { ArtifactInfo, PublishApproval, SessionState } from "../agent/ports.js";
import { disallowedAgentModels, parseRepoConfig, REPO_CONFIG_PATH, resolveModel, type RepoConfig } from "../config/index.js";
import { TackleError, errorMessage, isTackleError } from "../errors/index.js";
import {
  createAccessCache,
  createTrustCheck,
  redactingGitHubClient,
  type AccessOf,
  type GitHubClient,
  type ReactionTarget,
  type RepoRef,
} from "../github/index.js";
import type { Approvals } from "../jobs/approvals.js";
import type { DailyBudget } from "../jobs/daily-budget.js";
import type { MemoryStore } from "../jobs/memory-store.js";
import type { JobStore } from "../jobs/job-store.js";
import type { WebFetchCache } from "../net/create-web-fetch-cache.js";
import { createDestinationRules, createHttpClient, createMcpPort, createWebFetcher, isWebFetchOff, type McpServerSpec } from "../net/index.js";
import type { OperatorSecrets } from "../config/index.js";
import { formatRepoKey } from "../workspace/index.js";
import { SUBAGENT_TOOL_NAMES } from "../agent/subagent-types.js";
import { createSpend, type Spend } from "../agent/spend.js";
import { loadRepoExtensions } from "./load-repo-extensions.js";
import { mcpServerSpecs } from "./mcp-server-specs.js";
import { createMemoryPort } from "./memory-port.js";
import { reserveJobBudget, type HeldBudget } from "./reserve-job-budget.js";
import type { AckClaims } from "../jobs/ack-claims.js";
import { issueBranchName, type JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import { sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";
import { createRedactor, type Masked, type Redactor } from "../util/redact.js";
import { sleep } from "../util/sleep.js";
import type { PrepareOptions, Workspace } from "../workspace/index.js";
import { githubIssuePort, githubPullsPort } from "./github-ports.js";
import { createGitHubApprovalHandler } from "./approval-handler.js";
import { policyConfigOf, runAgentSession, type SessionInput } from "./run-agent-session.js";
import { observedModels, sessionObservers, type JobMetrics } from "./job-metrics.js";
import { startJobRecording, type JobRecording } from "./job-recording.js";
import { createTracker, type Tracker, type TrackingSink } from "./tracker.js";
import { trackingMarker, type JobStats, type TrackingState } from "./tracking-comment.js";
import { code, md, type SurfaceMarkdown } from "../util/surface-markdown.js";
import { problemComment } from "./problem-comment.js";

export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md"] as const;

export interface WorkerSettings {
  /** TACKLE_HOME: repo cache, checkouts, transcripts. */
  home: string;
  defaultModel: string;
  allowedModels: string[];
  sandbox: "bwrap" | "off";
  gitUrl: (owner: string, repo: string) => string;
  /** Host part of the repo cache key (github.com or the GHE host). */
  gitHost: string;
  /** Secrets the job must never leak (model key, webhook secret), redacted by value. */
  secrets: string[];
  /** How long a policy question waits for an answer; tests shorten it. @defaultValue the repo's approval_timeout_minutes */
  approvalTimeoutMs?: number;
  /** The `/name stop` hint in the tracking comment; null where commands do not exist (the Action). @defaultValue "tackle" */
  commandName?: string | null;
  /** The operator's TACKLE_SECRET_* variables and their scopes, which a repository's MCP `env` and `headers` may name. @defaultValue none */
  operatorSecrets?: OperatorSecrets;
  /** TACKLE_DAILY_BUDGET_USD: each installation's cap per UTC day (with `budget`). @defaultValue null: no cap */
  dailyBudgetUsd?: number | null;
  /** The dashboard's base URL (`TACKLE_PUBLIC_URL` + `/dashboard`): the tracking comment links the job's page. @defaultValue none */
  dashboardUrl?: string | null;
}

/** The ports processJob runs on; never a Probot context, so the server, worker and Action share it. */
export interface ProcessJobDeps {
  github: (data: JobData) => Promise<GitHubClient>;
  model: (modelName: string) => ModelClient;
  workspaces: { prepare(options: PrepareOptions): Promise<Workspace> };
  clock: () => number;
  logger: Logger;
  settings: WorkerSettings;
  /**
   * Where policy questions wait for `/tackle approve` / `/tackle deny`; the server's webhook handler
   * answers through the same store (or the same Redis). @defaultValue none: every question is denied
   */
  approvals?: Approvals;
  /**
   * Decides between the webhook side and the job who posts the tracking comment (see AckClaims).
   * @defaultValue none: the job looks for an earlier comment by its marker, else posts one (Action)
   */
  claims?: AckClaims;
  /**
   * The repositories' durable memory (Redis, or files under TACKLE_HOME) and the host part of its keys
   * (`github.com`, or the GHE host). @defaultValue memory is off
   */
  memory?: { store: MemoryStore; host: string };
  /** TACKLE_FETCH_ALLOW as loadEnv reads it (null: unset) and the process's page cache. @defaultValue WebFetch is off */
  web?: { allow: readonly string[] | null; cache: WebFetchCache };
  /**
   * Where the daily caps are counted (`settings.dailyBudgetUsd`, a repository's `daily_budget_usd`):
   * Redis shared by every worker, or this process's memory. @defaultValue none: no daily cap applies
   */
  budget?: DailyBudget;
  /** Where the job reports what `/metrics` counts (model calls, tokens, tool calls, sandbox failures). @defaultValue none */
  metrics?: JobMetrics;
  /**
   * Where the job's record, transcript and artifacts go for the dashboard (Redis, or files under
   * TACKLE_HOME; the Action's artifacts directory). @defaultValue none: nothing recorded, no UploadArtifact
   */
  jobStore?: JobStore;
}

export type JobOutcomeStatus = TrackingState["phase"];

export interface JobOutcome {
  status: Exclude<JobOutcomeStatus, "queued" | "working">;
  /** Masked: it leaves through the job store, the log, the queue's record and the Action's summary. */
  reason: Masked;
  pullRequestUrl: string | null;
  /** Turns, tokens, cost and duration, as the final tracking comment shows them (the Action's step summary). */
  stats: JobStats;
  /** What the job uploaded with UploadArtifact (the Action's step summary lists them). */
  artifacts?: ArtifactInfo[];
}

export function reactionTarget(data: JobData): ReactionTarget {
  const { commentId, commentKind } = data.trigger;
  if (commentId !== undefined && commentKind === "review_comment") return { kind: "review_comment", id: commentId };
  if (commentId !== undefined && commentKind === "issue") return { kind: "issue_comment", id: commentId };
  return { kind: "issue", number: data.number };
}

function emptyStats(durationMs: number): JobStats {
  return { durationMs, turns: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, costUsd: 0 };
}

function statsOf(result: AgentResult, durationMs: number, subagentTurns = 0): JobStats {
  return {
    durationMs,
    turns: result.turns,
    ...(subagentTurns > 0 ? { subagentTurns } : {}),
    inputTokens: result.usage.input + result.usage.cacheWrite,
    outputTokens: result.usage.output,
    cacheReadTokens: result.usage.cacheRead,
    costUsd: result.costUsd,
  };
}

async function readInstructionFiles(github: GitHubClient, repo: RepoRef, ref: string) {
  const contents = await Promise.all(INSTRUCTION_FILES.map((filePath) => github.getFile(repo, filePath, ref)));
  return INSTRUCTION_FILES.flatMap((filePath, i) => (contents[i] == null ? [] : [{ path: filePath, content: contents[i]! }]));
}

/**
 * `config_invalid` is reported once as its own comment naming each bad key. A problem quotes the
 * repository's text (a key, a value): masked, then shown inert.
 */
function configProblemComment(problems: string[], commandName: string, redact: (text: string) => string): SurfaceMarkdown {
  return problemComment(
    md`**Tackle could not use ${code(REPO_CONFIG_PATH)}** on the default branch, so this job did not run:`,
    problems,
    md`Fix the file and comment ${code(`/${commandName} retry`)}.`,
    redact,
  );
}

/** Problems with the repository's agent and skill files, reported like the config's. */
function extensionProblemComment(problems: string[], commandName: string, redact: (text: string) => string): SurfaceMarkdown {
  return problemComment(
    md`**Tackle could not use the repository's agents or skills** (\`.tackle/agents/\`, \`.tackle/skills/\`, \`.claude/skills/\` on the default branch), so this job did not run:`,
    problems,
    md`Fix the files and comment ${code(`/${commandName} retry`)}.`,
    redact,
  );
}

/** What every phase of one job works with, built once when the job starts. */
interface JobContext {
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
  sink: TrackingSink;
  /** The job store's record of this run, when the process has a store. */
  recording: JobRecording | undefined;
  /** The job's one permission cache: every trust check of the job asks it. */
  accessOf: AccessOf;
}

/** What the job reads from GitHub before the agent starts, all started at once. */
interface JobInputs {
  defaultBranch: Promise<string>;
  /** The repository's numeric id, as GitHub answers for its name now: what its memory is keyed by. */
  repoId: Promise<number>;
  issue: Promise<IssueDetails>;
  config: Promise<ReturnType<typeof parseRepoConfig>>;
  instructionFiles: Promise<Array<{ path: string; content: string }>>;
  target: Promise<Target>;
}

type IssueDetails = Awaited<ReturnType<GitHubClient["getIssue"]>>;

/**
 * One job, start to end: acknowledge -> workspace -> agent -> finish. The workspace is started the
 * moment the job's target is known, while the acknowledgement and the reads of the issue, the config
 * and the instruction files run beside it: nothing on the way to the first model turn waits for a
 * comment to be written. Always ends with a final edit of the tracking comment; throws only what the
 * queue should retry.
 */
export async function processJob(
  data: JobData,
  deps: ProcessJobDeps,
  signal: AbortSignal,
  attempt: { attempt: number; maxAttempts: number } = { attempt: 1, maxAttempts: 1 },
): Promise<JobOutcome> {
  // Until the job's redactor exists (it needs the installation token), a failure is masked with the operator's secrets.
  const job = await openJob(data, deps, signal, attempt.attempt).catch((error: unknown) => {
    throw maskedError(error, createRedactor(deps.settings.secrets));
  });
  try {
    const outcome = await runJob(job, attempt);
    await job.recording?.ended(outcome);
    const artifacts = job.recording?.artifacts.list() ?? [];
    return artifacts.length === 0 ? outcome : { ...outcome, artifacts };
  } catch (error) {
    // Only what the queue retries is thrown here (or what broke before the job could end itself).
    await job.recording?.threw(error, isTackleError(error) ? error.retryable : true);
    // The queue keeps what is thrown (BullMQ's failedReason and stacktrace, shown by the queue view): masked.
    throw maskedError(error, job.redact);
  }
}

/** The error with its message and stack through the job's redactor; its code and retryable flag kept, the original as its cause. */
function maskedError(error: unknown, redact: Redactor): Error {
  const message = redact(errorMessage(error));
  const masked = isTackleError(error)
    ? new TackleError(error.code, message, { retryable: error.retryable, cause: error })
    : new Error(message, { cause: error });
  const stack = error instanceof Error ? error.stack : undefined;
  masked.stack = stack === undefined ? `${masked.name}: ${message}` : redact(stack);
  return masked;
}

async function runJob(job: JobContext, attempt: { attempt: number; maxAttempts: number }): Promise<JobOutcome> {
  const { data, deps, signal, log, redact, startedAt } = job;
  log.info({ attempt: attempt.attempt, queuedMs: Date.now() - Date.parse(data.enqueuedAt) }, "job started");
  let tracker: Tracker | undefined;
  // The command the comments advertise: the repo's own phrase once its config is read.
  const trackerFor = (commandName: string | null) =>
    (tracker ??= createTracker({
      jobId: data.jobId,
      clock: deps.clock,
      logger: log,
      commandName,
      sink: job.sink,
      redact: job.redact,
      ...(job.recording?.jobUrl ? { jobUrl: job.recording.jobUrl } : {}),
    }));
  const finish = async (ending: FinalState, commandName: string | null = defaultCommandName(deps)): Promise<JobOutcome> => {
    // The tracker masks the comment's texts itself; the outcome's reason leaves through the queue's job
    // record, the log and the Action's summary, so it is masked here too.
    const state = { ...ending, reason: redact(ending.reason) };
    await trackerFor(commandName).flush(state);
    log.info({ status: state.phase, reason: state.reason }, "job finished");
    // The outcome leaves through the queue's job record and the Action's log, not only through GitHub.
    return { status: state.phase, reason: state.reason, pullRequestUrl: state.pullRequestUrl ?? null, stats: state.stats };
  };

  const stopWorkspace = new AbortController();
  const onAbort = () => stopWorkspace.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let workspaceStart: Promise<Workspace | null> | undefined;
  // The whole job's model spend, read to settle its daily budget on every way out, and counted for /metrics as it goes.
  const onCharge = deps.metrics ? sessionObservers(deps.metrics, `${data.repo.owner}/${data.repo.name}`).onCharge : undefined;
  const priceFor = deps.model(deps.settings.defaultModel).price;
  const spend = createSpend({ ...(onCharge ? { onCharge } : {}), ...(priceFor ? { priceFor } : {}) });
  let budget: HeldBudget | undefined;
  try {
    const inputs = readJobInputs(job);
    workspaceStart = inputs.target.then(async (target) => {
      if (!target.ok) return null;
      const preparing = deps.clock();
      const workspace = await prepareWorkspace(job, target, await inputs.defaultBranch, stopWorkspace.signal);
      // Where the time to the first model turn goes: the wait for the target, then the workspace step.
      log.info({ sinceStartMs: preparing - startedAt, workspaceMs: deps.clock() - preparing }, "workspace ready");
      return workspace;
    });
    // Settled here so an early return below never leaves an unhandled rejection behind.
    workspaceStart.catch(() => undefined);

    const admitted = await admitJob(job, inputs);
    if (!admitted.ok) {
      stopWorkspace.abort(new TackleError("aborted", "the job ended before its workspace was needed"));
      await disposeWorkspace(workspaceStart, log);
      if (admitted.reply) await job.github.createComment(job.repo, data.number, admitted.reply);
      return await finish({ ...admitted.ending, stats: emptyStats(deps.clock() - startedAt) }, admitted.commandName);
    }
    const { commandName } = admitted;
    budget = admitted.budget;
    const tracking = trackerFor(commandName);
    tracking.update({ phase: "working", step: "preparing the workspace", todos: [], startedAt, unsandboxed: deps.settings.sandbox === "off" });
    const workspace = await workspaceStart;
    if (!workspace) throw new TackleError("workspace", "the workspace was not prepared");
    // A throw here is caught below, which puts the workspace away.
    const ending = withLoweredBudget(await runAndPublish(job, admitted, workspace, tracking, attempt, spend), admitted.budget);
    // Settled before the final edit: a job triggered once this one reads as finished sees its cost.
    await admitted.budget.settle(spend.costUsd);
    // The checkout is put away while the final edit waits its turn in GitHub's write spacing.
    const [outcome] = await Promise.all([finish(ending, commandName), disposeWorkspace(workspaceStart, log)]);
    return outcome;
  } catch (error) {
    if (workspaceStart) await disposeWorkspace(workspaceStart, log);
    return await endInError(job, trackerFor(defaultCommandName(deps)), error, attempt);
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Every other way out (a throw, a retry, a stop) gives the hold back too; settling twice counts once.
    await budget?.settle(spend.costUsd);
  }
}

/** A job that ran out of budget says when its budget was a daily cap's remainder rather than its own. */
function withLoweredBudget(ending: FinalState, budget: HeldBudget): FinalState {
  if (ending.phase !== "budget_exhausted" || budget.lowered === null) return ending;
  return { ...ending, reason: `${ending.reason} (${budget.lowered})` };
}

type FinalState = Exclude<TrackingState, { phase: "queued" | "working" }>;

function defaultCommandName(deps: ProcessJobDeps): string | null {
  return deps.settings.commandName === undefined ? "tackle" : deps.settings.commandName;
}

/** The job's client, redactor and tracking comment; the comment is resolved in the background. */
async function openJob(data: JobData, deps: ProcessJobDeps, signal: AbortSignal, attempt: number): Promise<JobContext> {
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
  const sink = githubSink(github, repo, data.number, commentId, (id) => {
    void deps.claims?.setComment(data.jobId, id).catch((error: unknown) => log.warn({ err: errorMessage(error) }, "could not record the tracking comment"));
  });
  const recording =
    deps.jobStore === undefined
      ? undefined
      : startJobRecording({ store: deps.jobStore, data, attempt, clock: deps.clock, log, redact, dashboardUrl: deps.settings.dashboardUrl ?? null });
  return { data, deps, signal, repo, log, github, redact, startedAt, sink, recording, accessOf: createAccessCache(github, repo) };
}

function readJobInputs(job: JobContext): JobInputs {
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

type Admission =
  | { ok: false; ending: Omit<FinalState, "stats">; reply?: SurfaceMarkdown; commandName: string | null }
  | {
      ok: true;
      issue: IssueDetails;
      config: RepoConfig;
      modelName: string;
      commandName: string | null;
      instructionFiles: Array<{ path: string; content: string }>;
      repoId: number;
      target: Extract<Target, { ok: true }>;
      /** The job's share of the daily budgets; `config.max_cost_usd` is already clamped to it. */
      budget: HeldBudget;
      /** The config's MCP servers, each secret they name checked against its scope. */
      mcpServers: McpServerSpec[];
    };

/**
 * Whether the job should run at all, from what it read: the issue still open, a usable config and
 * model, a target, and something left of the daily budgets (reserved last, once nothing else can refuse).
 */
async function admitJob(job: JobContext, inputs: JobInputs): Promise<Admission> {
  const { deps, data } = job;
  const fallbackName = defaultCommandName(deps);
  const issue = await inputs.issue;
  if (issue.state !== "open") {
    return { ok: false, ending: { phase: "no_changes", reason: `#${data.number} was closed before the job ran; nothing to do` }, commandName: fallbackName };
  }
  const parsed = await inputs.config;
  if (!parsed.ok) {
    return {
      ok: false,
      ending: { phase: "failed", reason: `invalid ${REPO_CONFIG_PATH}: ${parsed.problems.length} problem(s), listed in the comment below` },
      reply: configProblemComment(parsed.problems, fallbackName ?? "tackle", job.redact),
      commandName: fallbackName,
    };
  }
  const config = parsed.config;
  if (parsed.warnings.length > 0) job.log.warn({ warnings: parsed.warnings }, `${REPO_CONFIG_PATH} has settings that may not do what was meant`);
  const commandName = fallbackName === null ? null : (config.trigger.phrase ?? fallbackName);
  const modelChoice = resolveModel(config.model, { model: deps.settings.defaultModel, allowedModels: deps.settings.allowedModels });
  if (!modelChoice.ok) {
    return {
      ok: false,
      ending: { phase: "failed", reason: modelChoice.problem },
      reply: configProblemComment([modelChoice.problem], commandName ?? "tackle", job.redact),
      commandName,
    };
  }
  // Before anything starts: a secret out of scope fails the job, so no MCP session ever opens with it.
  const mcp = mcpServerSpecs(config.mcp_servers, job.repo, deps.settings.operatorSecrets ?? new Map());
  if (!mcp.ok) {
    return {
      ok: false,
      ending: { phase: "failed", reason: `invalid ${REPO_CONFIG_PATH}: ${mcp.problems.length} problem(s), listed in the comment below` },
      reply: configProblemComment(mcp.problems, commandName ?? "tackle", job.redact),
      commandName,
    };
  }
  const target = await inputs.target;
  if (!target.ok) return { ok: false, ending: { phase: "failed", reason: target.reason }, reply: target.reply, commandName };
  const instructionFiles = await inputs.instructionFiles;
  const budget = await reserveJobBudget({
    budget: deps.budget,
    operatorCapUsd: deps.settings.dailyBudgetUsd ?? null,
    config,
    data,
    now: deps.clock(),
    commandName,
    log: job.log,
  });
  if (!budget.ok) return { ok: false, ending: { phase: "budget_exhausted", reason: budget.reason }, commandName };
  return {
    ok: true,
    issue,
    config: { ...config, max_cost_usd: budget.maxCostUsd },
    modelName: modelChoice.model,
    commandName,
    instructionFiles,
    repoId: await inputs.repoId,
    target,
    budget,
    mcpServers: mcp.specs,
  };
}

function prepareWorkspace(job: JobContext, target: Extract<Target, { ok: true }>, defaultBranch: string, signal: AbortSignal): Promise<Workspace> {
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
async function disposeWorkspace(start: Promise<Workspace | null>, log: Logger): Promise<void> {
  const workspace = await start.catch(() => null);
  await workspace?.dispose().catch((error: unknown) => log.warn({ err: error }, "workspace cleanup failed"));
}

/** The agent's session, then what it leaves published; returns the job's final state. */
async function runAndPublish(
  job: JobContext,
  admitted: Extract<Admission, { ok: true }>,
  workspace: Workspace,
  tracker: Tracker,
  attempt: { attempt: number; maxAttempts: number },
  spend: Spend,
): Promise<FinalState> {
  const { deps, data, repo, github, log, redact, startedAt, signal } = job;
  const { config, issue, modelName, target } = admitted;
  const extensions = await loadRepoExtensions(workspace.extensionFiles, SUBAGENT_TOOL_NAMES);
  if (extensions.warnings.length > 0) log.warn({ warnings: extensions.warnings }, "some repository agents or skills were skipped");
  const problems = [
    ...extensions.problems,
    ...disallowedAgentModels(extensions.agents, { model: deps.settings.defaultModel, allowedModels: deps.settings.allowedModels }),
  ];
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

type SessionExtras = Pick<SessionInput, "memory" | "web" | "mcp" | "untrustedAuthors">;

/**
 * The session's ports beyond the core: the repository's memory (unless its config turns it off),
 * WebFetch's fetcher (unless an allow-list turns it off), its MCP servers (HTTP ones under WebFetch's
 * rules, stdio ones in the workspace's sandbox), and who in the thread lacks write access.
 */
async function sessionExtras(job: JobContext, admitted: Extract<Admission, { ok: true }>, workspace: Workspace): Promise<SessionExtras> {
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
  if (web !== undefined && !isWebFetchOff(web.allow, config.web_fetch.allow)) {
    extras.web = createWebFetcher({ allow: web.allow, repoAllow: config.web_fetch.allow, cache: web.cache, signal });
  }
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
async function untrustedAuthors(job: JobContext, config: RepoConfig, issueAuthor: string): Promise<string[]> {
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

/** A job that threw: the tracking comment says how it ended; what the queue should retry is rethrown. */
async function endInError(job: JobContext, tracker: Tracker, error: unknown, attempt: { attempt: number; maxAttempts: number }): Promise<JobOutcome> {
  const { signal, log, redact, deps, startedAt } = job;
  const lastAttempt = attempt.attempt >= attempt.maxAttempts;
  const aborted = signal.aborted || isTackleError(error, "aborted");
  // A worker shutting down past its drain bound aborts with a retryable reason: the job is requeued.
  const shutdown = signal.aborted && isTackleError(signal.reason) && signal.reason.retryable;
  const retryable = shutdown || (!aborted && isTackleError(error) && error.retryable && !lastAttempt);
  log.error({ err: error, attempt: attempt.attempt }, "job failed");
  if (isTackleError(error, "sandbox_unavailable")) deps.metrics?.sandboxFailure("job");
  const message = redact(errorMessage(error));
  const reason = shutdown
    ? "the worker shut down; another worker will pick the job up"
    : aborted
      ? "stopped on request"
      : message + (retryable ? ` (attempt ${attempt.attempt} of ${attempt.maxAttempts}; will retry)` : "");
  const stats = emptyStats(deps.clock() - startedAt);
  await tracker.flush(shutdown ? { phase: "queued", position: 1 } : { phase: aborted ? "cancelled" : "failed", reason, stats });
  if (retryable) throw error;
  return { status: aborted ? "cancelled" : "failed", reason: message, pullRequestUrl: null, stats };
}

async function findTrackingComment(github: GitHubClient, repo: RepoRef, number: number, jobId: string, log: Logger): Promise<number | null> {
  try {
    const marker = trackingMarker(jobId);
    const { comments } = await github.listComments(repo, number, 100);
    return comments.find((c) => c.body.includes(marker))?.id ?? null;
  } catch (error) {
    log.warn({ err: error }, "could not look for an earlier tracking comment");
    return null;
  }
}

/** Bound on waiting for the acknowledgement claims to answer again (Redis restarting). */
const CLAIMS_RETRY_MS = 10 * 60_000;

/**
 * The comment this job edits: one the webhook side is posting (the claim says who posts it), one an
 * earlier attempt posted (found by its marker), or null when this job should post it. Claims that
 * cannot be read (Redis restarting) are asked again until they answer: skipping them would let the
 * job post a second comment beside the one the webhook side is about to post.
 */
async function resolveTrackingComment(
  github: GitHubClient,
  data: JobData,
  claims: AckClaims | undefined,
  signal: AbortSignal,
  log: Logger,
): Promise<number | null> {
  if (claims) {
    const deadline = Date.now() + CLAIMS_RETRY_MS;
    for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        if (await claims.claim(data.jobId)) return null;
        const id = await claims.waitForComment(data.jobId, { timeoutMs: 120_000, signal });
        if (id !== null) return id;
        break;
      } catch (error) {
        if (signal.aborted || Date.now() + wait > deadline) {
          log.warn({ err: errorMessage(error) }, "the acknowledgement claims did not answer; looking for the comment");
          break;
        }
        log.warn({ err: errorMessage(error), retryInMs: wait }, "could not consult the acknowledgement claims; asking again");
        await sleep(wait, signal);
      }
    }
  }
  return findTrackingComment(github, data.repo, data.number, data.jobId, log);
}

/**
 * The tracking comment's writer. `initialId` is a promise: who posts the comment (the webhook side
 * or this job) is settled in the background, and the first write waits for it, so the agent never
 * does; later writes queue behind the first in the tracker.
 */
function githubSink(
  github: GitHubClient,
  repo: RepoRef,
  number: number,
  initialId: Promise<number | null>,
  onCreated: (commentId: number) => void = () => undefined,
): TrackingSink {
  let commentId: number | null | undefined;
  return {
    async write(body: SurfaceMarkdown): Promise<number | null> {
      commentId ??= await initialId.catch(() => null);
      if (commentId === null) {
        commentId = (await github.createComment(repo, number, body)).id;
        onCreated(commentId);
      } else {
        await github.updateComment(repo, commentId, body);
      }
      return commentId;
    },
  };
}

type Target =
  | {
      ok: true;
      branch: string;
      baseBranch: string;
      startFrom: "base" | "existing";
      existingPull: { number: number; url: string } | null;
    }
  | { ok: false; reason: string; reply: SurfaceMarkdown };

/** Which branch the job works on: the PR's own head (same repository only), or tackle/issue-N. */
async function resolveTarget(github: GitHubClient, repo: RepoRef, data: JobData, defaultBranch: Promise<string>): Promise<Target> {
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

/** No work is lost: uncommitted changes are committed and a branch with commits gets its draft PR. */
async function publishLeftovers(options: {
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
  const dirty = await workspace.git.status();
  if (dirty.length > 0) {
    await workspace.git.commit(`WIP: changes left uncommitted by the agent (#${options.data.number})`);
  }
  const published = state.pullRequest?.url ?? null;
  if (published && dirty.length === 0) return { url: published, refused: null };
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

function finalState(
  result: AgentResult,
  state: SessionState,
  pullRequestUrl: string | null,
  durationMs: number,
  sandboxed: boolean,
  subagentTurns: number,
): Exclude<TrackingState, { phase: "queued" | "working" }> {
  const stats = statsOf(result, durationMs, subagentTurns);
  const base = {
    reason: result.reasonText ?? result.reason,
    stats,
    pullRequestUrl,
    ...(state.done?.summary ? { summary: state.done.summary } : {}),
    ...(sandboxed ? {} : { unsandboxed: true }),
  };
  switch (result.reason) {
    case "task_done":
      return { phase: pullRequestUrl ? "done" : "no_changes", ...base };
    case "max_turns":
    case "max_cost":
    case "deadline":
      return { phase: "budget_exhausted", ...base, ...(pullRequestUrl ? { kept: `the work so far is in ${pullRequestUrl}` } : {}) };
    case "aborted":
      return { phase: "cancelled", ...base };
    case "no_tool_calls":
      return { phase: pullRequestUrl ? "done" : "no_changes", ...base };
    default:
      return { phase: "failed", ...base };
  }
}

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
    jobId: data.jobId,
    clock: deps.clock,
    logger: log,
    commandName,
    redact,
    sink: githubSink(github, data.repo, data.number, Promise.resolve(commentId)),
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
