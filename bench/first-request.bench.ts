/**
 * How big the first request is as tools are added: system prompt + tool definitions + first message, in
 * tokens as the fake API counts them (4 characters a token, as /v1/messages/count_tokens is modelled in
 * test/fakes/compute-usage.ts). The request is the one runAgentSession really sends, for the same task,
 * once with the core tools and once with everything #11 and #12 add offered (Task with two repository
 * agent types, Skill with three skills, WebFetch, MemoryRead and MemoryWrite with a three-entry index,
 * the MCP gateway, the background-command tools, and #13's UploadArtifact), plus Worktree, which local
 * runs offer last.
 */
import type { MessageRequest, ModelClient, ModelMessage } from "../src/agent/model-client.js";
import type { ArtifactPort, McpPort, MemoryPort, WebPort } from "../src/agent/ports.js";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler, worktreeTool } from "../src/agent/tools/index.js";
import type { RepoExtensions } from "../src/config/repo-extensions.js";
import { runAgentSession } from "../src/worker/run-agent-session.js";
import { sessionInput } from "../test/integration/agent/helpers.js";
import { countInputTokens, countTokens } from "../test/fakes/compute-usage.js";
import path from "node:path";
import { commitAll, contextFor, generateRepo, openWorkspace, tempDir } from "./agent-helpers.js";
import { printTable } from "./table.js";

const GOAL_TOKENS = 7_500;
/** The issue's figure for Claude Code's first request on the same task; a reference, not measured here. */
const CLAUDE_CODE_TOKENS = 29_900;

const ISSUE = {
  number: 42,
  title: "Invoice amount doubled after a retry",
  body: "Invoices show the wrong amount after a retry. Expected: the amount stays the same across retries.",
};

const EXTENSIONS: RepoExtensions = {
  agents: [
    {
      name: "reviewer",
      description: "reviews a diff for bugs and style against CONTRIBUTING.md",
      tools: ["Read", "Grep", "Glob", "git_diff"],
      prompt: "Review.",
      path: ".tackle/agents/reviewer.md",
    },
    {
      name: "test-writer",
      description: "writes focused unit tests for a changed function",
      tools: ["Read", "Write", "Edit", "Bash"],
      prompt: "Write tests.",
      path: ".tackle/agents/test-writer.md",
    },
  ],
  skills: [
    {
      name: "release-notes",
      description: "writes a CHANGELOG entry in the house format",
      body: "",
      dir: "/x",
      files: [],
      tools: [],
      path: ".tackle/skills/release-notes/SKILL.md",
    },
    {
      name: "db-migration",
      description: "adds a reversible migration with the team's checklist",
      body: "",
      dir: "/x",
      files: [],
      tools: [],
      path: ".tackle/skills/db-migration/SKILL.md",
    },
    {
      name: "api-docs",
      description: "updates the OpenAPI description after an endpoint change",
      body: "",
      dir: "/x",
      files: [],
      tools: [],
      path: ".claude/skills/api-docs/SKILL.md",
    },
  ],
  problems: [],
};

const MEMORY: MemoryPort = {
  index: async () =>
    [
      "build-needs-codegen: run npm run codegen before the tests",
      "test-db: tests need TEST_DB_URL=sqlite::memory:",
      "money-in-cents: amounts are integer cents",
    ].map((line, i) => {
      const [name, description] = line.split(": ") as [string, string];
      return { name, description, jobId: `octo/billing#${30 + i}-1a2b`, actor: "maintainer", updatedAt: "2026-11-30T10:00:00.000Z" };
    }),
  read: async () => null,
  write: async () => "created",
};

const WEB: WebPort = { fetch: () => Promise.reject(new Error("not used")) };

const ARTIFACTS: ArtifactPort = { upload: () => Promise.reject(new Error("not used")), list: () => [] };

const MCP: McpPort = {
  discover: async () => ({ tools: [], failures: [] }),
  call: () => Promise.reject(new Error("not used")),
  close: async () => undefined,
};

/** A model that records its first request and ends the run. */
function firstRequestModel(): ModelClient & { first?: MessageRequest } {
  const model: ModelClient & { first?: MessageRequest } = {
    name: "recorder",
    async create(request) {
      model.first ??= structuredClone(request);
      return {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: request.model,
        content: [{ type: "tool_use", id: "toolu_done", name: "task_done", input: { summary: "measured" }, caller: { type: "direct" } }],
        stop_reason: "tool_use",
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } as ModelMessage["usage"],
      } as ModelMessage;
    },
  };
  return model;
}

export async function run(): Promise<void> {
  const temp = tempDir("first-request");
  try {
    const repo = path.join(temp.dir, "repo");
    const home = path.join(temp.dir, "home");
    generateRepo(repo, 20);
    await commitAll(repo, home);
    const measure = async (
      label: string,
      extras: { extensions?: RepoExtensions; memory?: MemoryPort; web?: WebPort; mcp?: McpPort; artifacts?: ArtifactPort },
    ) => {
      const workspace = await openWorkspace(repo, home, `tackle/bench-first-${label.length}`);
      try {
        const model = firstRequestModel();
        const ctx = contextFor(workspace, new AbortController().signal, ISSUE);
        await runAgentSession(
          sessionInput(workspace, model, home, {
            jobId: `bench-first-${label.length}`,
            issue: ctx.issue,
            pulls: ctx.pulls,
            modelName: "claude-sonnet-4-6",
            repoFullName: "octo/billing",
            task: { ...ISSUE, kind: "issue_assigned", actor: "maintainer" },
            ...extras,
          }),
        );
        const request = model.first as unknown as { system: unknown; messages: unknown; tools: Array<{ name: string }> };
        return { label, request, tokens: countInputTokens(request as unknown as Record<string, unknown>) };
      } finally {
        await workspace.dispose();
      }
    };
    const core = await measure("a repository without agents, skills, memory or WebFetch", {});
    const all = await measure("everything of #11, #12 and #13 offered", { extensions: EXTENSIONS, memory: MEMORY, web: WEB, mcp: MCP, artifacts: ARTIFACTS });
    const row = (m: typeof core) => [
      `${m.label} (${m.request.tools.length} tools)`,
      countTokens(m.request.system),
      countTokens(m.request.tools),
      countTokens(m.request.messages),
      m.tokens,
    ];
    printTable(
      ["first request", "system", "tool definitions", "first message", "total tokens"],
      [row(core), row(all), ["Claude Code, same task (the issue's figure, not measured here)", "", "", "", CLAUDE_CODE_TOKENS]],
    );
    const coreNames = new Set(coreTools().map((tool) => tool.name));
    const added = all.request.tools.filter((tool) => !coreNames.has(tool.name));
    console.log();
    printTable(
      [
        `tool added since the core (the ${coreNames.size} core tools: ${countTokens(all.request.tools.filter((tool) => coreNames.has(tool.name)))})`,
        "tokens of its definition",
      ],
      added.map((tool) => [tool.name, countTokens(tool)]),
    );
    // Worktree is offered in local runs only, last: its definition as the registry sends it.
    const [worktree] = createToolRegistry([worktreeTool], { policy: createPolicyEngine(), approval: denyingApprovalHandler }).definitions();
    const worktreeTokens = countTokens(worktree);
    const everything = all.tokens + worktreeTokens;
    console.log(`\nWorktree (local runs only, offered last): ${worktreeTokens} tokens more, ${everything} in all.`);
    const left = GOAL_TOKENS - everything;
    console.log(
      `goal ≤ ${GOAL_TOKENS} tokens with every tool of #11, #12 and #13 offered: ${everything}` +
        ` (${everything <= GOAL_TOKENS ? "within" : "over"} the goal, ${left} tokens to spare).`,
    );
  } finally {
    temp.remove();
  }
}
