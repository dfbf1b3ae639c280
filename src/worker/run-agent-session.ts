import { runAgent, buildSystemPrompt, buildTaskMessage, createTranscript, type AgentResult } from "../agent/index.js";
import type { ModelClient } from "../agent/model-client.js";
import type { IssuePort, PullsPort, SessionState } from "../agent/ports.js";
import {
  coreTools,
  createPolicyEngine,
  createToolRegistry,
  denyingApprovalHandler,
  type ApprovalHandler,
  type ApprovalQuestion,
} from "../agent/tools/index.js";
import type { ToolContext } from "../agent/tools/tool.js";
import type { RepoConfig } from "../config/index.js";
import type { PolicyConfig } from "../agent/policy/index.js";
import type { Logger } from "../logging/logger.js";
import type { Workspace } from "../workspace/index.js";
import { renderSetupReport, runSetupSteps } from "./run-setup-steps.js";
import type { Tracker } from "./tracker.js";
import type { TrackingState } from "./tracking-comment.js";

export interface SessionInput {
  jobId: string;
  workspace: Workspace;
  issue: IssuePort;
  pulls: PullsPort;
  config: RepoConfig;
  model: ModelClient;
  modelName: string;
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
   * transcript and the setup report go through it.
   */
  redact: (text: string) => string;
  clock: () => number;
  startedAt: number;
  signal: AbortSignal;
  logger: Logger;
  /**
   * Answers the policy's questions. While it waits, the tracking comment says so and the job's
   * timeout_minutes clock stands still. @defaultValue denyingApprovalHandler (nobody can answer)
   */
  approval?: ApprovalHandler;
}

export interface SessionOutcome {
  result: AgentResult;
  state: SessionState;
}

/** The policy engine's settings from the repo config; the host's pre-push check uses the same. */
export function policyConfigOf(config: RepoConfig): PolicyConfig {
  return {
    protectedPaths: config.protected_paths,
    blockedCommands: config.blocked_commands,
    maxDiffLines: config.max_diff_lines,
    ...(config.require_approval_above === undefined ? {} : { requireApprovalAbove: config.require_approval_above }),
  };
}

/**
 * The part every mode shares: build the tools over the workspace's ports, run the agent loop, and
 * mirror its progress into the tracking comment.
 */
export async function runAgentSession(input: SessionInput): Promise<SessionOutcome> {
  const { workspace, config } = input;
  const state: SessionState = { todos: [], notes: [] };
  const policyConfig = policyConfigOf(config);
  const unsandboxed = !workspace.sandboxed;
  let step = "reading the issue";
  /** Time spent waiting for a maintainer, which does not count against timeout_minutes. */
  let waitedMs = 0;
  const working = (current: string): TrackingState => ({
    phase: "working",
    step: current,
    todos: [...state.todos],
    startedAt: input.startedAt,
    unsandboxed,
  });
  const approval =
    input.approval === undefined
      ? denyingApprovalHandler
      : trackedApproval(input.approval, {
          clock: input.clock,
          waiting: (question) => input.tracker.update(working(`waiting for approval to run ${question.tool} (${question.reason})`)),
          resumed: (ms) => {
            waitedMs += ms;
            input.tracker.update(working(step));
          },
        });
  const registry = createToolRegistry(coreTools(), {
    policy: createPolicyEngine(policyConfig),
    approval,
    redact: input.redact,
    logger: input.logger,
  });
  const ctx: ToolContext = {
    fs: workspace.fs,
    exec: workspace.exec,
    search: workspace.search,
    git: workspace.git,
    issue: input.issue,
    pulls: input.pulls,
    state,
    baseBranch: workspace.baseBranch,
    draftByDefault: config.draft_pr,
    signal: input.signal,
    logger: input.logger,
  };
  const transcript = await createTranscript({
    dir: input.transcriptDir,
    jobId: input.jobId,
    model: input.modelName,
    redact: input.redact,
  });
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
    const initialMessage = taskMessage + input.redact(renderSetupReport(setup));
    const result = await runAgent({
      model: input.model,
      modelName: input.modelName,
      tools: registry,
      ctx,
      system,
      initialMessage,
      budgets: {
        maxTurns: config.max_turns,
        maxOutputTokensPerTurn: config.max_output_tokens,
        maxCostUsd: config.max_cost_usd,
        deadline: input.startedAt + config.timeout_minutes * 60_000,
      },
      transcript,
      clock: () => input.clock() - waitedMs,
      signal: input.signal,
      onProgress: (event) => {
        if (event.type === "tool_calls") step = event.summary;
        input.tracker.update({
          phase: "working",
          step,
          todos: [...state.todos],
          startedAt: input.startedAt,
          unsandboxed,
        });
      },
    });
    return { result, state };
  } finally {
    await transcript.close();
  }
}

/** Reports each wait for a maintainer: to the tracking comment, and its length to the deadline. */
function trackedApproval(
  handler: ApprovalHandler,
  hooks: { clock: () => number; waiting: (question: ApprovalQuestion) => void; resumed: (waitedMs: number) => void },
): ApprovalHandler {
  return {
    async request(question, signal) {
      const since = hooks.clock();
      hooks.waiting(question);
      try {
        return await handler.request(question, signal);
      } finally {
        hooks.resumed(hooks.clock() - since);
      }
    },
  };
}
