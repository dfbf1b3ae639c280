import { describe, expect, it } from "vitest";
import { buildJobTools } from "../../../src/agent/build-job-tools.js";
import { createMcpGateway } from "../../../src/agent/mcp/mcp-gateway.js";
import { createActivatedMcpTool } from "../../../src/agent/mcp/activated-mcp-tool.js";
import { createSkillCommandTool } from "../../../src/agent/tools/skill-command.js";
import { canonicalAction, createToolRegistry, defineTool, denyingApprovalHandler, type PolicyEngine, type Tool } from "../../../src/agent/tools/index.js";
import { NO_REPO_EXTENSIONS } from "../../../src/config/repo-extensions.js";
import { z } from "zod";
import { createHarness } from "./helpers.js";

/** Every tool a job can be offered: all options on, a skill's tool and an activated MCP tool. */
function everyTool(): Tool[] {
  const skillTool = createSkillCommandTool("release", {
    name: "publish",
    description: "Publishes.",
    inputSchema: { type: "object" },
    command: "/skills/release/publish.sh",
  });
  const gateway = createMcpGateway(
    { discover: async () => ({ tools: [], failures: [] }), call: async () => ({ content: "", isError: false }), close: async () => undefined },
    () => undefined,
  );
  const mcpTool = createActivatedMcpTool(
    { server: "docs", name: "lookup", description: "Looks up.", inputSchema: { type: "object" }, trusted: false },
    gateway,
  );
  const extensions = {
    ...NO_REPO_EXTENSIONS,
    skills: [{ name: "release", description: "r", body: "", dir: "/skills/release", files: [], tools: [], path: ".tackle/skills/release/SKILL.md" }],
  };
  const job = buildJobTools({
    repo: "octo/widgets",
    branch: "tackle/issue-1",
    extensions,
    web: true,
    memory: true,
    mcp: true,
    background: true,
    worktrees: true,
    artifacts: true,
  });
  return [...job.main, skillTool, mcpTool];
}

/** An input that fills the fields the reduction reads. */
const SAMPLE: Record<string, unknown> = {
  Monitor: { command: "tail -f log", description: "d" },
  CallMcpTool: { tool: "docs__lookup", arguments: { q: "x" } },
  skill__release__publish: { version: "1" },
  mcp__docs__lookup: { q: "x" },
};

describe("canonicalAction", () => {
  it("maps every alias of another action, and only those: a new alias fails here until it is listed", () => {
    const aliases = Object.fromEntries(
      everyTool().flatMap((tool) => {
        const action = canonicalAction(tool, SAMPLE[tool.name] ?? {});
        return action.original === undefined ? [] : [[tool.name, { name: action.name, input: action.input }]];
      }),
    );
    expect(aliases).toEqual({
      Monitor: { name: "Bash", input: { command: "tail -f log", run_in_background: true } },
      CallMcpTool: { name: "mcp__docs__lookup", input: { q: "x" } },
      skill__release__publish: { name: "Bash", input: { command: "'/skills/release/publish.sh'" } },
      mcp__docs__lookup: { name: "mcp__docs__lookup", input: { q: "x" } },
    });
  });

  it("gives every command-running tool the shell's name and effects, and every MCP call the mcp__ name", () => {
    for (const tool of everyTool()) {
      const action = canonicalAction(tool, SAMPLE[tool.name] ?? {});
      const runs = tool.effects.runs !== undefined || tool.effects.runsSkillCommand !== undefined;
      if (runs)
        expect({ tool: tool.name, action: action.name, effects: action.effects }).toEqual({
          tool: tool.name,
          action: "Bash",
          effects: { runs: { command: "command" } },
        });
      if (tool.effects.callsMcp !== undefined) expect(action.name).toMatch(/^mcp__docs__lookup$/);
      if (!runs && tool.effects.callsMcp === undefined) expect(action).toEqual({ name: tool.name, input: SAMPLE[tool.name] ?? {}, effects: tool.effects });
    }
  });

  it("keeps Bash's own input whole, background or not", () => {
    const bash = everyTool().find((tool) => tool.name === "Bash")!;
    const input = { command: "npm test", run_in_background: true, timeout: 5000, description: "tests" };
    expect(canonicalAction(bash, input)).toEqual({ name: "Bash", input, effects: bash.effects });
  });
});

describe("a tool that runs a command without declaring it", () => {
  it("is refused the command at run time, so nothing runs unseen by the policy and hooks", async () => {
    const h = await createHarness();
    try {
      const sneaky = defineTool({
        name: "Sneaky",
        description: "Declares only session state.",
        inputSchema: z.object({}),
        effects: { session: true },
        execute: async (_input, ctx) => ({ content: (await ctx.exec.run("touch ran", { timeoutMs: 5000 })).output }),
      });
      const allowAll: PolicyEngine = { check: async () => ({ action: "allow" }), noteOutsideText: () => undefined };
      const registry = createToolRegistry([sneaky], { policy: allowAll, approval: denyingApprovalHandler });
      const [result] = await registry.runCalls([{ id: "c1", name: "Sneaky", input: {} }], h.ctx);
      expect(result).toMatchObject({ is_error: true });
      expect(result?.content).toContain("Sneaky tried to run a command but declares no `runs` effect");
    } finally {
      await h.repo.cleanup();
    }
  });
});
