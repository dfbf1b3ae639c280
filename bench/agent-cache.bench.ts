/**
 * Prompt-cache reuse over a 30-turn session: the real loop and SDK client against the fake Anthropic
 * API, which accounts tokens with Anthropic's caching rules (1 024-token minimum, 20-block lookback,
 * 5-minute TTL). The session is a plausible one: the real system prompt with an AGENTS.md, the 17 core
 * tool definitions, and real tool results from a generated repository (reads, searches, edits,
 * commands, todos). The baseline is the same session's tokens priced with no cache at all.
 *
 * The second session is the same job through runAgentSession (the job's whole tool list, Task
 * included), where two of the 30 turns delegate: one to an `explore` subagent, one to a
 * `general-purpose` one. Their requests count in the share, and are reported apart.
 */
import path from "node:path";
import { createAnthropicClient } from "../src/agent/anthropic-client.js";
import { runAgent } from "../src/agent/loop.js";
import { costOf } from "../src/agent/pricing.js";
import { buildSystemPrompt } from "../src/agent/prompt/build-system-prompt.js";
import { buildTaskMessage } from "../src/agent/prompt/build-task-message.js";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler } from "../src/agent/tools/index.js";
import { defaultRepoConfig } from "../src/config/index.js";
import { createDestinationRules, createHttpClient, createMcpPort } from "../src/net/index.js";
import { runAgentSession, type SessionInput } from "../src/worker/run-agent-session.js";
import { literalValues, sessionInput } from "../test/integration/agent/helpers.js";
import type { ModelClient } from "../src/agent/model-client.js";
import type { Workspace } from "../src/workspace/index.js";
import { startFakeMcpServer } from "../test/fakes/fake-mcp-server.js";
import type { MessagesRequest } from "../test/fakes/fake-anthropic.js";
import { startFakeAnthropic, type RecordedRequest, type ScriptedTurn } from "../test/fakes/index.js";
import { commitAll, contextFor, generateRepo, openWorkspace, tempDir } from "./agent-helpers.js";
import { printTable } from "./table.js";
import { redactKnownTokens } from "../src/util/redact.js";

const MODEL = "claude-sonnet-4-6";
const TURNS = 30;
const GOAL_SHARE = 0.9;

const AGENTS_MD = `# Working in this repository

- TypeScript, ESM, Node 20. Source in src/, one package per directory (src/pkgN/).
- Build: \`npm run build\`. Tests: \`npm test\` (vitest); run the tests of the package you touch first.
- Style: two-space indent, double quotes, no default exports. Name files after their main export.
- Every public function has a unit test beside it. Money is in cents (integers), never floats.
- Commit messages: imperative mood, say why. Keep pull requests small and focused on one issue.
- Do not edit generated files under dist/ or the lockfile by hand.
`;

const ISSUE_BODY = `Invoices for customers in some packages show the wrong amount after a retry.

Steps to reproduce:
1. Create an order with handleOrder3Request.
2. Let the upstream time out once (see the TODO in src/pkg0/module-0.ts).
3. The retried invoice amount is doubled.

Expected: the amount stays the same across retries. Probably a missing idempotency check in the step functions.`;

const PLAN = ["Find where retries recompute the amount", "Add an idempotency check", "Test and open the PR"];

/** 29 working turns and task_done, each with a line of thinking aloud as models write it. */
function script(): ScriptedTurn[] {
  const say = (text: string, ...calls: Array<{ name: string; input: unknown }>): ScriptedTurn => ({
    content: [{ type: "text", text }, ...calls.map((call) => ({ type: "tool_use" as const, ...call }))],
  });
  // The plan's three steps, each with its status, as the model rewrites the whole list every time.
  const plan = (...statuses: [string, string, string]) => ({
    name: "TodoWrite",
    input: { todos: PLAN.map((content, i) => ({ content, status: statuses[i] })) },
  });
  const turns: ScriptedTurn[] = [
    say("Let me read the issue thread and plan.", { name: "GetIssue", input: {} }),
    say("Planning the work.", plan("in_progress", "pending", "pending")),
    say("Searching for the retry TODO.", { name: "Grep", input: { pattern: "TODO\\(", output_mode: "content", head_limit: 30 } }),
    say("Reading the module the issue names.", { name: "Read", input: { file_path: "src/pkg0/module-0.ts" } }),
    say("And the request handler for orders.", { name: "Read", input: { file_path: "src/pkg0/module-3.ts" } }),
    say("Where else are step functions used?", { name: "Grep", input: { pattern: "orderStep1\\(", output_mode: "files_with_matches" } }),
    say("Looking at the package layout.", { name: "Glob", input: { pattern: "src/pkg0/*.ts" } }),
    say(
      "Reading two neighbours to compare.",
      { name: "Read", input: { file_path: "src/pkg0/module-10.ts" } },
      { name: "Read", input: { file_path: "src/pkg0/module-20.ts" } },
    ),
    say("Noting what I found.", { name: "NoteWrite", input: { notes: ["amount computed in handleOrder*Request", "steps are pure; retry path in module-0"] } }),
    say("Checking the repository state.", { name: "git_status", input: {} }),
    say("Checking recent history.", { name: "git_log", input: { count: 5 } }),
    say("Counting the step functions.", { name: "Bash", input: { command: "grep -c 'Step' src/pkg0/module-0.ts" } }),
    say("Adding the idempotency guard.", {
      name: "Edit",
      input: {
        file_path: "src/pkg0/module-0.ts",
        old_string: "  const trimmed = input.trim();",
        new_string: "  const trimmed = input.trim(); // idempotent: same id, same amount",
      },
    }),
    say("Reading the change back.", { name: "Read", input: { file_path: "src/pkg0/module-0.ts", limit: 20 } }),
    say("Updating the plan.", plan("completed", "in_progress", "pending")),
    say("Same fix in the order module.", {
      name: "Edit",
      input: {
        file_path: "src/pkg0/module-3.ts",
        old_string: "  const trimmed = input.trim();",
        new_string: "  const trimmed = input.trim(); // idempotent: same id, same amount",
      },
    }),
    say("Adding a test.", {
      name: "Write",
      input: {
        file_path: "src/pkg0/module-0.test.ts",
        content:
          'import { handleOrder0Request } from "./module-0.js";\n\nconst a = handleOrder0Request(" x ");\nconst b = handleOrder0Request(" x ");\nif (a.id !== b.id) throw new Error("not idempotent");\n',
      },
    }),
    say("Running the new test.", { name: "Bash", input: { command: "ls src/pkg0 | head -20 && wc -l src/pkg0/module-0.test.ts" } }),
    say("Reviewing the diff.", { name: "git_diff", input: {} }),
    say("Looking for other copies of the pattern.", {
      name: "Grep",
      input: { pattern: "const trimmed = input.trim\\(\\);$", output_mode: "count", path: "src/pkg1" },
    }),
    say("Reading one of them.", { name: "Read", input: { file_path: "src/pkg1/module-100.ts" } }),
    say("Out of scope for this issue; noting it.", {
      name: "NoteWrite",
      input: { notes: ["amount computed in handleOrder*Request", "pkg1 has the same pattern; left for a follow-up"] },
    }),
    say("Committing.", {
      name: "git_commit",
      input: { message: "Keep invoice amounts stable across retries\n\nRetries recomputed the amount; mark the handlers idempotent." },
    }),
    say("Checking the commit.", { name: "git_log", input: { count: 2 } }),
    say("Updating the plan.", plan("completed", "completed", "in_progress")),
    say("Clean tree?", { name: "git_status", input: {} }),
    say("One more look at the test file.", { name: "Read", input: { file_path: "src/pkg0/module-0.test.ts" } }),
    say("Opening the pull request.", {
      name: "create_pull_request",
      input: { title: "Keep invoice amounts stable across retries", body: "Fixes the doubled amount after a retry.\n\nTested with a new unit test." },
    }),
    say("Final status.", { name: "git_status", input: {} }),
    say("Done.", { name: "task_done", input: { summary: "Made the order handlers idempotent so retries keep the amount; added a test; opened a draft PR." } }),
  ];
  if (turns.length !== TURNS) throw new Error(`the script has ${turns.length} turns, not ${TURNS}`);
  return turns;
}

interface Totals {
  input: number;
  write: number;
  read: number;
  output: number;
}

function sum(requests: readonly RecordedRequest[]): Totals {
  const totals: Totals = { input: 0, write: 0, read: 0, output: 0 };
  for (const request of requests) {
    totals.input += request.usage?.input_tokens ?? 0;
    totals.write += request.usage?.cache_creation_input_tokens ?? 0;
    totals.read += request.usage?.cache_read_input_tokens ?? 0;
    totals.output += request.usage?.output_tokens ?? 0;
  }
  return totals;
}

const share = (t: Totals) => t.read / (t.input + t.write + t.read);
const pct = (value: number) => `${(value * 100).toFixed(1)} %`;

/** The bench job's session input over `workspace`: its issue, config, AGENTS.md and a silent tracker. */
function benchSession(workspace: Workspace, model: ModelClient, home: string, jobId: string, extra: Partial<SessionInput> = {}): SessionInput {
  const ctx = contextFor(workspace, new AbortController().signal, { number: 42, title: "Invoice amount doubled after a retry", body: ISSUE_BODY });
  return sessionInput(workspace, model, home, {
    jobId,
    issue: ctx.issue,
    pulls: ctx.pulls,
    config: { ...defaultRepoConfig(), max_turns: TURNS, max_cost_usd: 100 },
    repoFullName: "octo/billing",
    task: { number: 42, title: "Invoice amount doubled after a retry", body: ISSUE_BODY, kind: "issue_assigned", actor: "maintainer" },
    instructionFiles: [{ path: "AGENTS.md", content: AGENTS_MD }],
    ...extra,
  });
}

const EXPLORE_TASK = "Find every place that recomputes an invoice amount on retry";
const FIX_TASK = "Apply the idempotency guard to module-10 and module-20";

/** The subagents' own turns: what each would plausibly do with its task. */
const SUBAGENT_TURNS: Record<string, ScriptedTurn[]> = {
  [EXPLORE_TASK]: [
    { content: [{ type: "tool_use", name: "Grep", input: { pattern: "amount", output_mode: "files_with_matches", head_limit: 20 } }] },
    { content: [{ type: "tool_use", name: "Read", input: { file_path: "src/pkg0/module-0.ts" } }] },
    { content: [{ type: "tool_use", name: "Grep", input: { pattern: "retry", output_mode: "content", head_limit: 20 } }] },
    { content: [{ type: "tool_use", name: "Read", input: { file_path: "src/pkg0/module-3.ts" } }] },
    { content: [{ type: "tool_use", name: "Glob", input: { pattern: "src/pkg0/*.ts" } }] },
    {
      content: [
        {
          type: "text",
          text: "The amount is recomputed in handleOrder0Request (src/pkg0/module-0.ts) and handleOrder3Request (src/pkg0/module-3.ts); both trim the input before the step functions.",
        },
      ],
    },
  ],
  [FIX_TASK]: [
    { content: [{ type: "tool_use", name: "Read", input: { file_path: "src/pkg0/module-10.ts", limit: 30 } }] },
    {
      content: [
        {
          type: "tool_use",
          name: "Edit",
          input: {
            file_path: "src/pkg0/module-10.ts",
            old_string: "  const trimmed = input.trim();",
            new_string: "  const trimmed = input.trim(); // idempotent",
          },
        },
      ],
    },
    {
      content: [
        {
          type: "tool_use",
          name: "Edit",
          input: {
            file_path: "src/pkg0/module-20.ts",
            old_string: "  const trimmed = input.trim();",
            new_string: "  const trimmed = input.trim(); // idempotent",
          },
        },
      ],
    },
    { content: [{ type: "tool_use", name: "git_diff", input: {} }] },
    { content: [{ type: "text", text: "Added the guard to module-10 and module-20; the diff is two lines." }] },
  ],
};

function firstText(request: MessagesRequest): string {
  const first = (request.messages as Array<{ content: string | Array<{ text?: string }> }> | undefined)?.[0];
  if (first === undefined) return "";
  return typeof first.content === "string" ? first.content : first.content.map((block) => block.text ?? "").join("\n");
}

const turnOf = (request: MessagesRequest) => ((request.messages as Array<{ role: string }> | undefined) ?? []).filter((m) => m.role === "assistant").length;

/** The main script with turns 4 and 13 delegating; each conversation answered by its own script. */
function subagentRoute(): (request: MessagesRequest) => ScriptedTurn {
  const main = script();
  main[3] = {
    content: [
      { type: "text", text: "Let an explorer map it." },
      { type: "tool_use", name: "Task", input: { description: "map the retry path", prompt: EXPLORE_TASK, subagent_type: "explore" } },
    ],
  };
  main[12] = {
    content: [
      { type: "text", text: "Delegating the neighbours." },
      { type: "tool_use", name: "Task", input: { description: "guard the neighbours", prompt: FIX_TASK } },
    ],
  };
  return (request) => {
    const task = Object.keys(SUBAGENT_TURNS).find((key) => firstText(request).includes(key));
    const turns = task === undefined ? main : (SUBAGENT_TURNS[task] as ScriptedTurn[]);
    const turn = turns[turnOf(request)];
    if (turn === undefined) throw new Error(`no scripted turn ${turnOf(request) + 1} for ${task ?? "the main agent"}`);
    return turn;
  };
}

async function runWithSubagents(): Promise<void> {
  const temp = tempDir("cache-sub");
  const fake = await startFakeAnthropic(subagentRoute(), { minCacheableTokens: 1_024 });
  try {
    const repo = path.join(temp.dir, "repo");
    const home = path.join(temp.dir, "home");
    generateRepo(repo, 300);
    await commitAll(repo, home);
    const workspace = await openWorkspace(repo, home, "tackle/bench-cache-sub");
    try {
      const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
      const { result } = await runAgentSession(benchSession(workspace, model, home, "bench-cache-sub"));
      if (result.reason !== "task_done" || result.turns !== TURNS) {
        throw new Error(`the session with subagents ended with ${result.reason} after ${result.turns} turns: ${result.error ?? result.reasonText}`);
      }
    } finally {
      await workspace.dispose();
    }
    const requests = fake.requests.filter((r) => r.status === 200);
    const kind = (request: RecordedRequest) => {
      const text = firstText(request.body);
      return text.includes(EXPLORE_TASK) ? "explore" : text.includes(FIX_TASK) ? "general-purpose" : "main";
    };
    const row = (label: string, list: RecordedRequest[]) => {
      const t = sum(list);
      return [label, list.length, t.input, t.write, t.read, pct(share(t))];
    };
    const explore = requests.filter((r) => kind(r) === "explore");
    const general = requests.filter((r) => kind(r) === "general-purpose");
    console.log();
    printTable(
      ["session with two subagents", "requests", "uncached input", "cache write", "cache read", "cache-read share of input"],
      [
        row(
          "job's agent",
          requests.filter((r) => kind(r) === "main"),
        ),
        row("explore subagent", explore),
        row("  its first request", explore.slice(0, 1)),
        row("general-purpose subagent", general),
        row("  its first request", general.slice(0, 1)),
        row("all", requests),
      ],
    );
    const reached = share(sum(requests));
    console.log(
      `\nEach subagent type has one byte-stable prefix (its tools, then its system prompt); its first request writes it (and its conversation so far) to the cache, its later requests read it back.` +
        `\ngoal ≥ ${GOAL_SHARE * 100} % with two subagents: ${reached >= GOAL_SHARE ? "met" : "not met"} (${pct(reached)})`,
    );
  } finally {
    await fake.close();
    temp.remove();
  }
}

/**
 * The same 30 turns through runAgentSession with an MCP server (the official SDK on loopback): three
 * turns activate a tool each (the tool list changes after the tools breakpoint), three call them.
 */
async function runWithActivations(): Promise<void> {
  const temp = tempDir("cache-mcp");
  const server = await startFakeMcpServer(12);
  const main = script();
  const changes: Record<number, ScriptedTurn> = {
    4: {
      content: [
        { type: "text", text: "Loading a docs tool." },
        { type: "tool_use", name: "LoadMcpTools", input: { activate: ["docs__tool1"] } },
      ],
    },
    5: {
      content: [
        { type: "text", text: "Looking it up." },
        { type: "tool_use", name: "mcp__docs__tool1", input: { text: "retries" } },
      ],
    },
    11: {
      content: [
        { type: "text", text: "Another docs tool." },
        { type: "tool_use", name: "LoadMcpTools", input: { activate: ["docs__tool2"] } },
      ],
    },
    12: {
      content: [
        { type: "text", text: "Checking limits." },
        { type: "tool_use", name: "mcp__docs__tool2", input: { text: "limits" } },
      ],
    },
    19: {
      content: [
        { type: "text", text: "A third one." },
        { type: "tool_use", name: "LoadMcpTools", input: { activate: ["docs__tool3"] } },
      ],
    },
    20: {
      content: [
        { type: "text", text: "Checking idempotency." },
        { type: "tool_use", name: "mcp__docs__tool3", input: { text: "idempotency" } },
      ],
    },
  };
  for (const [index, turn] of Object.entries(changes)) main[Number(index)] = turn;
  const fake = await startFakeAnthropic((request) => main[turnOf(request)] as ScriptedTurn, { minCacheableTokens: 1_024 });
  try {
    const repo = path.join(temp.dir, "repo");
    const home = path.join(temp.dir, "home");
    generateRepo(repo, 300);
    await commitAll(repo, home);
    const workspace = await openWorkspace(repo, home, "tackle/bench-cache-mcp");
    try {
      const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
      const { result } = await runAgentSession(
        benchSession(workspace, model, home, "bench-cache-mcp", {
          mcp: createMcpPort({
            servers: [{ name: "docs", kind: "http", url: server.url, headers: literalValues(), trusted: true }],
            http: createHttpClient({ rules: createDestinationRules([server.address]) }),
          }),
        }),
      );
      if (result.reason !== "task_done" || result.turns !== TURNS) {
        throw new Error(`the session with activations ended with ${result.reason} after ${result.turns} turns: ${result.error ?? result.reasonText}`);
      }
    } finally {
      await workspace.dispose();
    }
    const requests = fake.requests.filter((r) => r.status === 200);
    const after = (n: number) => requests.slice(n, n + 1);
    const row = (label: string, list: RecordedRequest[]) => {
      const t = sum(list);
      return [label, list.length, t.input, t.write, t.read, pct(share(t))];
    };
    console.log();
    printTable(
      ["session with 3 MCP activations", "requests", "uncached input", "cache write", "cache read", "cache-read share of input"],
      [
        row("request after activation 1 (turn 6)", after(5)),
        row("request after activation 2 (turn 13)", after(12)),
        row("request after activation 3 (turn 21)", after(20)),
        row(`all ${TURNS} turns`, requests),
      ],
    );
    const reached = share(sum(requests));
    console.log(
      `\nAn activation changes the tools after the breakpoint on the last stable tool: the next request reads the stable tools from the cache and writes the rest again.` +
        `\ngoal ≥ 85 % with 3 activations: ${reached >= 0.85 ? "met" : "not met"} (${pct(reached)})`,
    );
  } finally {
    await fake.close();
    await server.close();
    temp.remove();
  }
}

export async function run(): Promise<void> {
  await runSingle();
  await runWithSubagents();
  await runWithActivations();
}

async function runSingle(): Promise<void> {
  const temp = tempDir("cache");
  const fake = await startFakeAnthropic(script(), { minCacheableTokens: 1_024 });
  try {
    const repo = path.join(temp.dir, "repo");
    const home = path.join(temp.dir, "home");
    generateRepo(repo, 300);
    await commitAll(repo, home);
    const workspace = await openWorkspace(repo, home, "tackle/bench-cache");
    try {
      const controller = new AbortController();
      const result = await runAgent({
        model: createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 }),
        modelName: MODEL,
        tools: createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler }),
        ctx: contextFor(workspace, controller.signal, {
          number: 42,
          title: "Invoice amount doubled after a retry",
          body: ISSUE_BODY,
          labels: ["bug", "tackle"],
        }),
        system: buildSystemPrompt({
          repo: "octo/billing",
          branch: workspace.branch,
          baseBranch: workspace.baseBranch,
          instructionFiles: [{ path: "AGENTS.md", content: AGENTS_MD }],
        }),
        initialMessage: redactKnownTokens(
          buildTaskMessage({
            task: { number: 42, title: "Invoice amount doubled after a retry", body: ISSUE_BODY },
            trigger: { kind: "issue_assigned", actor: "maintainer" },
          }),
        ),
        budgets: { maxTurns: TURNS, maxOutputTokensPerTurn: 8_192, maxCostUsd: 100, deadline: Number.MAX_SAFE_INTEGER },
        signal: controller.signal,
      });
      if (result.reason !== "task_done" || result.turns !== TURNS) {
        throw new Error(`the session ended with ${result.reason} after ${result.turns} turns: ${result.error ?? result.reasonText}`);
      }
    } finally {
      await workspace.dispose();
    }

    const requests = fake.requests.filter((r) => r.status === 200);
    const first = sum(requests.slice(0, 1));
    const rest = sum(requests.slice(1));
    const all = sum(requests);
    printTable(
      ["requests", "uncached input", "cache write", "cache read", "cache-read share of input"],
      [
        ["turn 1", first.input, first.write, first.read, pct(share(first))],
        [`turns 2–${TURNS}`, rest.input, rest.write, rest.read, pct(share(rest))],
        [`all ${TURNS} turns`, all.input, all.write, all.read, pct(share(all))],
      ],
    );

    const usage = (t: Totals) => ({ input_tokens: t.input, output_tokens: t.output, cache_creation_input_tokens: t.write, cache_read_input_tokens: t.read });
    const cached = costOf(MODEL, usage(all));
    const uncached = costOf(MODEL, usage({ input: all.input + all.write + all.read, write: 0, read: 0, output: all.output }));
    console.log();
    printTable(
      [`cost of the session (${MODEL})`, "USD", "ratio"],
      [
        ["no prompt cache (baseline)", uncached.toFixed(4), "1.00×"],
        ["with Tackle's breakpoints", cached.toFixed(4), `${(cached / uncached).toFixed(2)}×`],
      ],
    );
    const reached = share(all);
    console.log(`\ngoal ≥ ${GOAL_SHARE * 100} % of input tokens read from the cache: ${reached >= GOAL_SHARE ? "met" : "not met"} (${pct(reached)})`);
  } finally {
    await fake.close();
    temp.remove();
  }
}
