/**
 * The MCP gateway over the real session: a streamable-HTTP MCP server of the official SDK on loopback,
 * reached by the job's HTTP client under the allow-list; LoadMcpTools activating 11 tools (the
 * least recently used one evicted, and the model told), activated tools offered in slot order,
 * CallMcpTool calling a tool that is not active, approvals asked once per tool, and a server that
 * dies mid-job reported to the model while the job goes on.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import type { ApprovalQuestion } from "../../../src/agent/policy/index.js";
import { coreTools } from "../../../src/agent/tools/index.js";
import { createDestinationRules, createHttpClient, createMcpPort } from "../../../src/net/index.js";
import { runAgentSession } from "../../../src/worker/run-agent-session.js";
import { openLocalWorkspace, type Workspace } from "../../../src/workspace/index.js";
import type { MessagesRequest } from "../../fakes/fake-anthropic.js";
import { startFakeMcpServer, type FakeMcpServer } from "../../fakes/fake-mcp-server.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from "../../fakes/index.js";
import { removeDir, tempDir } from "../workspace/helpers.js";
import { literalValues, makeRepo, sandboxMode, sessionInput } from "./helpers.js";

const call = (name: string, input: unknown): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const turnOf = (request: MessagesRequest) => ((request.messages as Array<{ role: string }> | undefined) ?? []).filter((m) => m.role === "assistant").length;
type Block = { type: string; content?: string; is_error?: boolean };
const lastResults = (request: MessagesRequest) =>
  ((request.messages as Array<{ content: Block[] }>).at(-1)!.content as Block[]).filter((block) => block.type === "tool_result");

describe("MCP servers behind the gateway", () => {
  let base: string | undefined;
  const closers: Array<() => Promise<void>> = [];
  const workspaces: Workspace[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close().catch(() => undefined);
    for (const workspace of workspaces.splice(0)) await workspace.dispose();
    if (base !== undefined) removeDir(base);
  });

  it("activates 11 of 12 tools (evicting the first), calls active and inactive ones, asks once per tool, and survives the server's death", async () => {
    base = tempDir("mcp");
    const repo = await makeRepo(base);
    const server: FakeMcpServer = await startFakeMcpServer(12);
    closers.push(() => server.close());
    const activate = Array.from({ length: 11 }, (_, i) => `docs__tool${i + 1}`);
    const script = (request: MessagesRequest): ScriptedTurn => {
      switch (turnOf(request)) {
        case 0:
          return call("LoadMcpTools", { activate });
        case 1:
          return call("mcp__docs__tool11", { text: "a" });
        case 2:
          return call("CallMcpTool", { tool: "docs__tool1", arguments: { text: "b" } });
        case 3:
          return call("mcp__docs__tool11", { text: "c" });
        case 4:
          void server.close();
          return call("CallMcpTool", { tool: "docs__tool3", arguments: { text: "d" } });
        default:
          return call("task_done", { summary: "Looked things up." });
      }
    };
    const fake: FakeAnthropic = await startFakeAnthropic(script, { minCacheableTokens: 0 });
    closers.push(() => fake.close());
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-mcp", home: path.join(base, "home"), sandbox: sandboxMode });
    workspaces.push(workspace);
    const mcp = createMcpPort({
      servers: [{ name: "docs", kind: "http", url: server.url, headers: literalValues({ "x-docs-key": "k-123" }), trusted: false }],
      http: createHttpClient({ rules: createDestinationRules([server.address]) }),
    });
    const questions: ApprovalQuestion[] = [];
    const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
    const outcome = await runAgentSession(
      sessionInput(workspace, model, path.join(base, "home"), {
        mcp,
        approval: {
          request: async (question) => {
            questions.push(question);
            return { approved: true, by: "alice" };
          },
        },
      }),
    );

    expect(outcome.result.reason).toBe("task_done");
    const requests = fake.requests.map((request) => request.body);
    const [loaded] = lastResults(requests[1]!);
    expect(loaded?.content).toContain("Activated docs__tool1 (slot 1)");
    expect(loaded?.content).toContain("Activated docs__tool11 (slot 1)");
    expect(loaded?.content).toContain("Evicted docs__tool1, the least recently used of the 10 active tools, to make room.");
    expect(loaded?.content).toContain("- docs__tool12: Looks up topic 12 in the docs. (inputs: text)");

    // Activated tools follow the core ones in slot order: tool11 took slot 1.
    const tools = requests[1]!.tools as Array<{ name: string; cache_control?: unknown; input_schema: unknown }>;
    const names = tools.map((tool) => tool.name);
    const core = coreTools().length;
    expect(names.slice(-10)).toEqual(["mcp__docs__tool11", ...Array.from({ length: 9 }, (_, i) => `mcp__docs__tool${i + 2}`)]);
    expect(names).toContain("LoadMcpTools");
    expect(names).not.toContain("mcp__docs__tool1");
    // The tools breakpoint stays on the last tool that never changes, not on an activated one.
    expect(tools.findIndex((tool) => tool.cache_control !== undefined)).toBe(names.indexOf("mcp__docs__tool11") - 1);
    expect(tools.length).toBeGreaterThan(core + 10);
    expect(tools.at(-1)?.input_schema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });

    expect(lastResults(requests[2]!)[0]?.content).toBe('<mcp_result server="docs" tool="tool11">\ntool11 says: a\n</mcp_result>');
    expect(lastResults(requests[3]!)[0]?.content).toBe('<mcp_result server="docs" tool="tool1">\ntool1 says: b\n</mcp_result>');
    expect(lastResults(requests[4]!)[0]?.content).toContain("tool11 says: c");
    // Asked once per tool: tool11 (its second call went through unasked), tool1, and tool3.
    expect(questions.map((question) => question.tool)).toEqual(["mcp__docs__tool11", "mcp__docs__tool1", "mcp__docs__tool3"]);
    expect(questions.map((question) => question.reason)).toEqual([
      'it calls docs__tool11 on the repository\'s MCP server "docs"',
      'it calls docs__tool1 on the repository\'s MCP server "docs"',
      'it calls docs__tool3 on the repository\'s MCP server "docs"',
    ]);
    // The server died: the model is told, and the job went on to task_done.
    const dead = lastResults(requests[5]!)[0];
    expect(dead?.is_error).toBe(true);
    expect(dead?.content).toMatch(/^MCP server "docs" failed the call to tool3: /);
    expect(server.calls.map((c) => `${c.tool}:${c.text}`)).toEqual(["tool11:a", "tool1:b", "tool11:c"]);
    expect(server.headers.every((headers) => headers["x-docs-key"] === "k-123")).toBe(true);
  });

  it("refuses a server the allow-list does not name, and the job goes on without it", async () => {
    base = tempDir("mcp-refused");
    const repo = await makeRepo(base);
    const server = await startFakeMcpServer(1);
    closers.push(() => server.close());
    const fake = await startFakeAnthropic([call("LoadMcpTools", {}), call("task_done", { summary: "No tools." })], { minCacheableTokens: 0 });
    closers.push(() => fake.close());
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-mcp2", home: path.join(base, "home"), sandbox: sandboxMode });
    workspaces.push(workspace);
    const mcp = createMcpPort({
      servers: [{ name: "docs", kind: "http", url: server.url, headers: literalValues(), trusted: true }],
      http: createHttpClient({ rules: createDestinationRules(["docs.example.com"]) }),
    });
    const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
    const outcome = await runAgentSession(sessionInput(workspace, model, path.join(base, "home"), { mcp }));
    expect(outcome.result.reason).toBe("task_done");
    const [listed] = lastResults(fake.requests[1]!.body);
    expect(listed?.content).toContain("No MCP tools match.");
    expect(listed?.content).toMatch(/MCP server "docs" is unavailable: .*127\.0\.0\.1/);
    expect(server.calls).toEqual([]);
    expect(server.headers).toEqual([]);
  });
});
