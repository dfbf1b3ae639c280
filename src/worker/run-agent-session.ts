import { runAgent, buildSystemPrompt, buildTaskMessage, createTranscript, type AgentResult } from "../agent/index.js";
import type { ModelClient } from "../agent/model-client.js";
import { createMcpGateway } from "../agent/mcp/mcp-gateway.js";
import type {
  ArtifactPort,
  IssuePort,
  McpPort,
  McpServerFailure,
  MemoryPort,
  MemorySummary,
  PublishApproval,
  PullsPort,
  SessionState,
  WebPort,
} from "../agent/ports.js";
import { createBackgroundJobs, describeJob, type BackgroundJobs } from "../agent/background-jobs.js";
import { buildJobTools } from "../agent/build-job-tools.js";
import { renderBackgroundEvents } from "../agent/prompt/render-background-events.js";
import { renderMemoryIndex } from "../agent/prompt/render-memory-index.js";
import { createSideCalls } from "../agent/side-calls.js";
import { createSkillPort } from "../agent/skills.js";
import { createSpend, type Spend } from "../agent/spend.js";
import { createSubagents, type SubagentEvent } from "../agent/subagents.js";
import {
  createApprovalGate,
  createPublishApproval,
  createPolicyEngine,
  createToolHooks,
  createToolRegistry,
  denyingApprovalHandler,
  type ApprovalAnswer,
  type ApprovalHandler,
  type ApprovalQuestion,
} from "../agent/tools/index.js";
import type { ToolContext } from "../agent/tools/tool.js";
import path from "node:path";
import type { RepoConfig } from "../config/index.js";
import { HOOKS_DIR } from "../config/repo-extension-paths.js";
import { NO_REPO_EXTENSIONS, type RepoExtensions } from "../config/repo-extensions.js";
import type { PolicyConfig } from "../agent/policy/index.js";
import type { Logger } from "../logging/logger.js";
import type { Workspace } from "../workspace/index.js";
import { renderSetupReport, runSetupSteps } from "./run-setup-steps.js";
import type { SessionObservers } from "./job-metrics.js";
import type { Tracker } from "./tracker.js";
import type { MemoryWriteNote, SubagentStep, TrackingState } from "./tracking-comment.js";
import type { Masked, Redactor } from "../util/redact.js";

export interface SessionInput {
  jobId: string;
  workspace: Workspace;
  issue: IssuePort;
  pulls: PullsPort;
  config: RepoConfig;
  model: ModelClient;
  modelName: string;
  /** Clients for other models (a repository's agent type may name one of the allowed models). @defaultValue always `model` */
  modelFor?: (modelName: string) => ModelClient;
  /** The job's spend meter, for a caller that reads the cost even when the session throws. @defaultValue a new one */
  spend?: Spend;
  repoFullName: string;
  task: {
    number?: number;
    isPullRequest?: boolean;
    title: string;
    body: string;
    instructions?: string;
    kind: string;
    actor: string;
  };
  instructionFiles: Array<{ path: string; content: string }>;
  tracker: Tracker;
  transcriptDir: string;
  /**
   * The job's one redactor (its secrets by value, the known token formats): tool results, the
   * transcript, the first message and the tracking comment's texts go through it.
   */
  redact: Redactor;
  clock: () => number;
  startedAt: number;
  signal: AbortSignal;
  logger: Logger;
  /**
   * Answers the policy's questions. While it waits, the tracking comment says so and the job's
   * timeout_minutes clock stands still. @defaultValue denyingApprovalHandler (nobody can answer)
   */
  approval?: ApprovalHandler;
  /** The repository's agents and skills, from its default branch. @defaultValue none */
  extensions?: RepoExtensions;
  /** The repository's memory; absent when it is off. */
  memory?: MemoryPort;
  /** WebFetch's fetcher; absent when WebFetch is off. */
  web?: WebPort;
  /** The repository's MCP servers (closed when the session ends); absent when it has none. */
  mcp?: McpPort;
  /** Logins in the thread without write access: memory writes then wait for a maintainer. @defaultValue [] */
  untrustedAuthors?: readonly string[] | Promise<readonly string[]>;
  /** Told how each tool call ended and what each model response cost (the operator's metrics). @defaultValue none */
  observers?: SessionObservers;
  /** Where UploadArtifact stores the job's artifacts; absent: the tool is not offered. */
  artifacts?: ArtifactPort;
  /** Each transcript line (redacted) once written: the job store's copy, for the dashboard. */
  onTranscriptLine?: (line: Masked) => void;
}

export interface SessionOutcome {
  /** `usage` and `costUsd` are the whole job's: its agent's, its subagents' and its tools' model calls. */
  result: AgentResult;
  state: SessionState;
  subagents: SubagentStep[];
  subagentTurns: number;
  /** One line per memory the job wrote or deleted. */
  memoryWrites: MemoryWriteNote[];
  /** The tool name of each call a PreToolUse hook denied, in order. */
  hookDenials: string[];
  /** One line per background command or Monitor the job ran, with how it ended. */
  backgroundJobs: string[];
  /** The MCP servers the job called, with the calls by tool. */
  mcpUsage: Array<{ server: string; tools: Array<{ name: string; calls: number }> }>;
  /** MCP servers the job could not use (not reached, or ended mid-job), with the host's reason, redacted. */
  mcpFailures: Array<Omit<McpServerFailure, "stderr">>;
  /** The job's way to ask about publishing (the session's approval gate): the end-of-job publish asks through it too. */
  approvePublish: PublishApproval;
}

/** The policy engine's settings from the repo config; the host's pre-push check uses the same. */
export function policyConfigOf(config: RepoConfig): PolicyConfig {
  return {
    protectedPaths: config.protected_paths,
    blockedCommands: config.blocked_commands,
    maxDiffLines: config.max_diff_lines,
    maxDiffBytes: config.max_diff_bytes,
    ...(config.require_approval_above === undefined ? {} : { requireApprovalAbove: config.require_approval_above }),
  };
}

/** The memory port, remembering what this job wrote for the tracking comment (redacted, as it was stored). */
function recordingMemory(port: MemoryPort, writes: MemoryWriteNote[], redact: Redactor): MemoryPort {
  return {
    index: () => port.index(),
    read: (name) => port.read(name),
    async write(entry) {
      const outcome = await port.write(entry);
      if (outcome === "created" || outcome === "updated")
        writes.push({ action: outcome === "created" ? "saved" : "updated", name: entry.name, description: redact(entry.description) });
      if (outcome === "deleted") writes.push({ action: "deleted", name: entry.name });
      return outcome;
    },
  };
}

/**
 * The part every mode shares: build the tools over the workspace's ports, run the agent loop, and
 * mirror its progress into the tracking comment.
 */
export async function runAgentSession(input: SessionInput): Promise<SessionOutcome> {
  const { workspace, config } = input;
  const state: SessionState = { todos: [], notes: [] };
  // The frozen thread's outsiders; what the tools bring in later (a live thread, web pages, MCP servers)
  // the registry tells the policy engine, result by result.
  const untrustedSources = async (): Promise<string[]> => (await (input.untrustedAuthors ?? [])).map((login) => `@${login}`);
  const policyConfig = { ...policyConfigOf(config), untrustedSources };
  const unsandboxed = !workspace.sandboxed;
  const extensions = input.extensions ?? NO_REPO_EXTENSIONS;
  let step = "reading the issue";
  /** Time spent waiting for a maintainer, which does not count against timeout_minutes. */
  let waitedMs = 0;
  /** When the wait for a maintainer now under way began: the job's clock stands still until it ends. */
  let waitingSince: number | undefined;
  const subagentSteps = new Map<string, SubagentStep>();
  const memoryWrites: MemoryWriteNote[] = [];
  // Set once the transcript is open: each policy question and its answer become an `approval` line.
  let recordApproval: (question: ApprovalQuestion, answer: ApprovalAnswer) => void = () => undefined;
  const working = (current: string): TrackingState => ({
    phase: "working",
    step: current,
    todos: [...state.todos],
    startedAt: input.startedAt,
    unsandboxed,
    ...(subagentSteps.size > 0 ? { subagents: [...subagentSteps.values()] } : {}),
  });
  const approval =
    input.approval === undefined
      ? denyingApprovalHandler
      : trackedApproval(input.approval, {
          clock: input.clock,
          waiting: (question) => {
            waitingSince = input.clock();
            input.tracker.update(working(`waiting for approval to run ${question.tool} (${question.reason})`));
          },
          resumed: (ms) => {
            waitingSince = undefined;
            waitedMs += ms;
            input.tracker.update(working(step));
          },
          answered: (question, answer) => recordApproval(question, answer),
        });
  const policy = createPolicyEngine(policyConfig);
  const gate = createApprovalGate(approval);
  const approvePublish = createPublishApproval(gate);
  const hookDenials: string[] = [];
  const hooks = createToolHooks({
    ...config.hooks,
    ...(workspace.extensionFiles === null ? {} : { hooksDir: path.join(workspace.extensionFiles.dir, HOOKS_DIR) }),
    onDenied: (toolName) => hookDenials.push(toolName),
  });
  const observer = input.observers?.onToolCall;
  const registryOptions = { policy, approval, gate, hooks, redact: input.redact, logger: input.logger, ...(observer ? { observer } : {}) };
  const clock = () => input.clock() - waitedMs - (waitingSince === undefined ? 0 : input.clock() - waitingSince);
  const budgets = {
    maxTurns: config.max_turns,
    maxOutputTokensPerTurn: config.max_output_tokens,
    maxCostUsd: config.max_cost_usd,
    deadline: input.startedAt + config.timeout_minutes * 60_000,
  };
  const onCharge = input.observers?.onCharge;
  // A job with a daily budget brings its own meter (it settles the reservation from it).
  const spend = input.spend ?? createSpend({ ...(onCharge ? { onCharge } : {}), ...(input.model.price ? { priceFor: input.model.price } : {}) });
  const transcript = await createTranscript({
    dir: input.transcriptDir,
    jobId: input.jobId,
    model: input.modelName,
    redact: input.redact,
    ...(input.onTranscriptLine === undefined ? {} : { onLine: input.onTranscriptLine }),
  });
  recordApproval = (question, answer) => {
    void transcript
      .approval({
        ...(question.call === undefined ? {} : { call: question.call }),
        tool: question.tool,
        reason: question.reason,
        approved: answer.approved,
        ...(answer.by === undefined ? {} : { by: answer.by }),
        ...(answer.message === undefined ? {} : { message: answer.message }),
      })
      .catch(() => undefined);
  };

  const tools = buildJobTools({
    repo: input.repoFullName,
    branch: workspace.branch,
    extensions,
    web: input.web !== undefined,
    memory: input.memory !== undefined,
    mcp: input.mcp !== undefined,
    background: workspace.exec.start !== undefined,
    worktrees: workspace.worktrees !== undefined,
    artifacts: input.artifacts !== undefined,
  });
  const registry = createToolRegistry(tools.main, registryOptions);
  const background = workspace.exec.start === undefined ? undefined : createBackgroundJobs(workspace.exec, { clock: input.clock, redact: input.redact });
  const mcp = input.mcp === undefined ? undefined : createMcpGateway(input.mcp, (tools) => registry.setGroup("mcp", tools));
  const modelFor = input.modelFor ?? (() => input.model);
  const subagents = createSubagents({
    types: tools.types,
    tools: tools.subagentTools,
    registry: (tools) => createToolRegistry(tools, registryOptions),
    model: modelFor,
    modelName: input.modelName,
    spend,
    budgets,
    clock,
    transcript,
    logger: input.logger,
    redact: input.redact,
    isReadOnly: tools.isReadOnly,
    onEvent: (event: SubagentEvent) => {
      subagentSteps.set(event.path, { ...event });
      input.tracker.update(working(step));
    },
  });
  // In a local run with worktrees, the tools' ports follow the session from checkout to checkout.
  const ports = workspace.worktrees?.ports ?? workspace;
  const ctx: ToolContext = {
    fs: ports.fs,
    exec: ports.exec,
    search: ports.search,
    git: ports.git,
    issue: input.issue,
    pulls: input.pulls,
    approvePublish,
    state,
    baseBranch: workspace.baseBranch,
    draftByDefault: config.draft_pr,
    signal: input.signal,
    logger: input.logger,
    subagents,
    sideCalls: createSideCalls({
      model: input.model,
      modelName: input.modelName,
      spend,
      maxCostUsd: budgets.maxCostUsd,
      deadline: budgets.deadline,
      clock,
      transcript,
    }),
    ...(input.web === undefined ? {} : { web: input.web }),
    ...(input.memory === undefined ? {} : { memory: recordingMemory(input.memory, memoryWrites, input.redact) }),
    ...(extensions.skills.length > 0 ? { skills: createSkillPort(extensions.skills, (tools) => registry.offer(tools)) } : {}),
    ...(mcp === undefined ? {} : { mcp }),
    ...(background === undefined ? {} : { background }),
    ...(workspace.worktrees === undefined ? {} : { worktrees: workspace.worktrees.port }),
    ...(input.artifacts === undefined ? {} : { artifacts: input.artifacts }),
  };
  const system = buildSystemPrompt({
    repo: input.repoFullName,
    branch: workspace.branch,
    baseBranch: workspace.baseBranch,
    instructionFiles: input.instructionFiles,
    ...(config.instructions ? { rules: [config.instructions] } : {}),
  });
  const taskMessage = buildTaskMessage({
    task: {
      ...(input.task.number === undefined ? {} : { number: input.task.number }),
      isPullRequest: input.task.isPullRequest ?? false,
      title: input.task.title,
      body: input.task.body,
      ...(input.task.instructions ? { instructions: input.task.instructions } : {}),
    },
    trigger: { kind: input.task.kind, actor: input.task.actor },
  });
  input.tracker.update({ phase: "working", step, todos: [], startedAt: input.startedAt, unsandboxed });

  try {
    const setup = await runSetupSteps(config.setup, workspace.exec, {
      signal: input.signal,
      onStep: (command) => input.tracker.update({ phase: "working", step: `setup: ${command}`, todos: [], startedAt: input.startedAt, unsandboxed }),
    });
    // Servers are connected off the critical path, once the setup steps (which install stdio servers)
    // are done: the first LoadMcpTools finds them ready.
    void mcp?.discover(input.signal).catch(() => undefined);
    const memories = await readMemoryIndex(input.memory, input.logger);
    const memoryIndex = renderMemoryIndex(memories);
    // Masked whole: the issue's own text too (GetIssue's result of the same body is masked by the registry).
    const initialMessage = input.redact(taskMessage + (memoryIndex === "" ? "" : `\n\n${memoryIndex}`) + renderSetupReport(setup));
    const result = await runAgent({
      model: input.model,
      modelName: input.modelName,
      tools: registry,
      ctx,
      system,
      initialMessage,
      budgets,
      transcript,
      clock,
      signal: input.signal,
      spend,
      ...(background === undefined ? {} : { pendingEvents: () => renderEvents(background, input.redact) }),
      onProgress: (event) => {
        if (event.type === "tool_calls") step = event.summary;
        input.tracker.update(working(step));
      },
    });
    await background?.stopAll();
    return {
      result: { ...result, usage: { ...spend.usage }, costUsd: spend.costUsd },
      state,
      subagents: [...subagentSteps.values()],
      subagentTurns: spend.subagentTurns,
      memoryWrites,
      hookDenials,
      backgroundJobs: (background?.list() ?? []).map((job) => input.redact(describeJob(job, input.clock()))),
      mcpUsage: mcp?.usage() ?? [],
      // Read before close, which stops the servers: a server stopped at the end did not fail.
      mcpFailures: (input.mcp?.failures?.() ?? []).map(({ server, error }) => ({ server, error: input.redact(error) })),
      approvePublish,
    };
  } finally {
    // Nothing the agent started outlives its session; the workspace's dispose is the backstop.
    await background?.stopAll().catch((error: unknown) => input.logger.warn({ err: error }, "could not stop the background commands"));
    await transcript.close();
    await input.mcp?.close().catch((error: unknown) => input.logger.warn({ err: error }, "could not close the MCP servers"));
  }
}

function renderEvents(background: BackgroundJobs, redact: Redactor): string | undefined {
  const text = renderBackgroundEvents(background.takeEvents());
  return text === undefined ? undefined : redact(text);
}

/** The memory index for the first message; a store that cannot be read leaves it out rather than failing the job. */
async function readMemoryIndex(memory: MemoryPort | undefined, logger: Logger): Promise<MemorySummary[]> {
  if (memory === undefined) return [];
  try {
    return await memory.index();
  } catch (error) {
    logger.warn({ err: error }, "could not read the repository's memory index");
    return [];
  }
}

/** Reports each wait for a maintainer: to the tracking comment, and its length to the deadline. */
function trackedApproval(
  handler: ApprovalHandler,
  hooks: {
    clock: () => number;
    waiting: (question: ApprovalQuestion) => void;
    resumed: (waitedMs: number) => void;
    answered: (question: ApprovalQuestion, answer: ApprovalAnswer) => void;
  },
): ApprovalHandler {
  return {
    async request(question, signal) {
      const since = hooks.clock();
      hooks.waiting(question);
      try {
        const answer = await handler.request(question, signal);
        hooks.answered(question, answer);
        return answer;
      } finally {
        hooks.resumed(hooks.clock() - since);
      }
    },
  };
}
