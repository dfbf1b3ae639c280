/**
 * One agent session over real parts: the real loop, the registry over the core tools with the real
 * policy engine, a git worktree opened by src/workspace (bubblewrap when it works here), and the
 * fake Anthropic API reached through the real SDK client. Only the issue and pulls ports are fakes.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import { runAgent, type AgentBudgets, type AgentProgressEvent, type AgentResult, type RunAgentOptions } from "../../../src/agent/loop.js";
import { buildSystemPrompt } from "../../../src/agent/prompt/build-system-prompt.js";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler, type ToolRegistry } from "../../../src/agent/tools/index.js";
import type { ToolContext } from "../../../src/agent/tools/tool.js";
import { defaultRepoConfig, resolveScopedSecrets, type ScopedValues } from "../../../src/config/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import type { ModelClient } from "../../../src/agent/model-client.js";
import type { SessionInput } from "../../../src/worker/run-agent-session.js";
import { createRedactor } from "../../../src/util/redact.js";
import { detectSandbox, openLocalWorkspace, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { startFakeAnthropic, type FakeAnthropic, type RecordedRequest, type ScriptedModel } from "../../fakes/index.js";
import { createFakeIssuePort, createFakePullsPort } from "../../unit/tools/helpers.js";
import { git, removeDir, tempDir } from "../workspace/helpers.js";
import { masked } from "../../fakes/masked.js";

export const MODEL = "claude-sonnet-4-6";
export const BUDGETS: AgentBudgets = { maxTurns: 30, maxOutputTokensPerTurn: 4096, maxCostUsd: 50, deadline: Number.MAX_SAFE_INTEGER };

const support = await detectSandbox();
export const sandboxMode: SandboxMode = support.available ? "bwrap" : "off";

/** The files of the test repository, committed on `main`. */
export const REPO_FILES: Record<string, string> = {
  "README.md": "# widgets\n\nConverts temperatures.\n",
  "src/temperature.js": "export function toFahrenheit(c) {\n  return (c * 9) / 5 + 23;\n}\n",
  "src/format.js": "export function formatDegrees(value, unit) {\n  return `${value} degrees ${unit}`;\n}\n",
  "test/temperature.test.js": "import { toFahrenheit } from '../src/temperature.js';\n// toFahrenheit(100) should be 212\n",
};

/** A user repository with REPO_FILES committed on `main`; returns its path. */
export async function makeRepo(base: string, files: Record<string, string> = REPO_FILES): Promise<string> {
  const repo = path.join(base, "project");
  mkdirSync(repo);
  await git(repo, ["init", "--quiet", "-b", "main"], base);
  await git(repo, ["config", "user.name", "Dev"], base);
  await git(repo, ["config", "user.email", "dev@example.com"], base);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    await execa("sh", ["-c", 'printf "%s" "$1" > "$2"', "sh", content, path.join(repo, file)]);
  }
  await git(repo, ["add", "-A"], base);
  await git(repo, ["commit", "--quiet", "-m", "initial"], base);
  return repo;
}

export interface SessionSetup {
  /** Overrides of the options runAgent gets. */
  agent?: Partial<Omit<RunAgentOptions, "ctx" | "tools" | "model">>;
  budgets?: Partial<AgentBudgets>;
  /** Job secrets the registry masks by value. */
  secrets?: string[];
  /** Wraps the workspace's ports before the tools see them, e.g. to time or count calls. */
  wrap?: (ports: Pick<ToolContext, "exec" | "search">) => Partial<Pick<ToolContext, "exec" | "search">>;
}

export interface Session {
  fake: FakeAnthropic;
  workspace: Workspace;
  registry: ToolRegistry;
  ctx: ToolContext;
  events: AgentProgressEvent[];
  run(): Promise<AgentResult>;
}

export interface SessionHarness {
  /** Starts the fake model with `script` and opens a fresh worktree of the test repository. */
  start(script: ScriptedModel, setup?: SessionSetup): Promise<Session>;
  /** Closes the fake, removes the worktree and the temp dir. */
  cleanup(): Promise<void>;
}

export function createSessionHarness(): SessionHarness {
  let base: string | undefined;
  let repo: string | undefined;
  let sessions = 0;
  const open: Array<{ fake: FakeAnthropic; workspace: Workspace }> = [];

  return {
    async start(script, setup = {}) {
      base ??= tempDir("agent");
      repo ??= await makeRepo(base);
      const fake = await startFakeAnthropic(script, { minCacheableTokens: 0 });
      const workspace = await openLocalWorkspace({
        repoPath: repo,
        branch: `tackle/local-session-${++sessions}`,
        home: path.join(base, "home"),
        sandbox: sandboxMode,
      });
      open.push({ fake, workspace });
      const registry = createToolRegistry(coreTools(), {
        policy: createPolicyEngine(),
        approval: denyingApprovalHandler,
        redact: createRedactor(setup.secrets ?? []),
      });
      const controller = new AbortController();
      const ports = { exec: workspace.exec, search: workspace.search };
      const ctx: ToolContext = {
        fs: workspace.fs,
        ...ports,
        ...setup.wrap?.(ports),
        git: workspace.git,
        issue: createFakeIssuePort(),
        pulls: createFakePullsPort(),
        state: { todos: [], notes: [] },
        baseBranch: workspace.baseBranch,
        signal: controller.signal,
        logger: silentLogger,
      };
      const events: AgentProgressEvent[] = [];
      const system = buildSystemPrompt({
        repo: "octo/widgets",
        branch: workspace.branch,
        baseBranch: workspace.baseBranch,
        instructionFiles: [{ path: "AGENTS.md", content: "Run `node --test` before committing.\n" }],
      });
      return {
        fake,
        workspace,
        registry,
        ctx,
        events,
        run: () =>
          runAgent({
            model: createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 }),
            modelName: MODEL,
            tools: registry,
            ctx,
            system,
            initialMessage: masked("Fix issue #1: toFahrenheit is off by 9 degrees."),
            budgets: { ...BUDGETS, ...setup.budgets },
            signal: controller.signal,
            onProgress: (event) => events.push(event),
            ...setup.agent,
          }),
      };
    },
    async cleanup() {
      for (const { fake, workspace } of open.splice(0)) {
        await fake.close();
        await workspace.dispose();
      }
      if (base !== undefined) removeDir(base);
      base = undefined;
      repo = undefined;
    },
  };
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

type Block = Record<string, unknown>;

function lastUserBlocks(request: RecordedRequest): Block[] {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | Block[] }>;
  const last = messages.at(-1);
  if (last === undefined || typeof last.content === "string") throw new Error("the request does not end with a block message");
  return last.content;
}

/** The tool results the model was sent in request `index` (0-based), in order. */
export function toolResultsIn(fake: FakeAnthropic, index: number): ToolResultBlock[] {
  const request = fake.requests[index];
  if (request === undefined) throw new Error(`no request ${index}; the fake got ${fake.requests.length}`);
  return lastUserBlocks(request).filter((block): block is Block & ToolResultBlock => block.type === "tool_result");
}

/** The text blocks of request `index`'s last user message (the state block is the last of them). */
export function textsIn(fake: FakeAnthropic, index: number): string[] {
  const request = fake.requests[index];
  if (request === undefined) throw new Error(`no request ${index}; the fake got ${fake.requests.length}`);
  return lastUserBlocks(request).flatMap((block) => (block.type === "text" ? [String(block.text)] : []));
}

/**
 * The tool_use ids of the reply to request `requestIndex`, as they went back into the history (read
 * from the next request).
 */
export function toolUseIdsOf(fake: FakeAnthropic, requestIndex: number): string[] {
  const request = fake.requests[requestIndex + 1];
  if (request === undefined) throw new Error(`no request after ${requestIndex}`);
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | Block[] }>;
  const assistant = messages.at(-2);
  if (assistant?.role !== "assistant" || typeof assistant.content === "string") throw new Error("no assistant reply before the last message");
  return assistant.content.flatMap((block) => (block.type === "tool_use" ? [String(block.id)] : []));
}

/**
 * runAgentSession's input for a local task over `workspace`: fake issue and pulls ports, the default
 * repo config, a silent tracker, the transcript under `home`. `overrides` win.
 */
export function sessionInput(workspace: Workspace, model: ModelClient, home: string, overrides: Partial<SessionInput> = {}): SessionInput {
  return {
    jobId: "job-session",
    workspace,
    issue: createFakeIssuePort(),
    pulls: createFakePullsPort(),
    config: defaultRepoConfig(),
    model,
    modelName: MODEL,
    repoFullName: "octo/widgets",
    task: { title: "toFahrenheit is off", body: "It adds 23 instead of 32.", kind: "local", actor: "dev" },
    instructionFiles: [],
    tracker: { update: () => undefined, flush: async () => undefined },
    transcriptDir: path.join(home, "transcripts"),
    redact: createRedactor([]),
    clock: Date.now,
    startedAt: Date.now(),
    signal: new AbortController().signal,
    logger: silentLogger,
    ...overrides,
  };
}

/** MCP values that name no secret, through the one function that makes ScopedValues. */
export function literalValues(values: Record<string, string> = {}): ScopedValues {
  const scoped = resolveScopedSecrets(values, { repo: { owner: "octo", name: "widgets" }, where: "test" }, new Map());
  if (!scoped.ok) throw new Error(scoped.problems.join("; "));
  return scoped.values;
}
