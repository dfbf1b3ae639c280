// A repository's PreToolUse hook matched tool names, so `{matcher: "mcp__docs__.*"}` denied the activated
// `mcp__docs__tool1` but not `CallMcpTool {tool: "docs__tool1"}`, which calls the same MCP tool. Hooks (and
// the policy) now see every call as its canonical action (src/agent/tools/canonical-action.ts): a
// CallMcpTool is `mcp__<server>__<tool>` with the arguments as its input.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/anthropic-client.js";
import { defaultRepoConfig } from "../../src/config/index.js";
import { createDestinationRules, createHttpClient, createMcpPort } from "../../src/net/index.js";
import { runAgentSession } from "../../src/worker/run-agent-session.js";
import { openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import type { MessagesRequest } from "../fakes/fake-anthropic.js";
import { startFakeMcpServer } from "../fakes/fake-mcp-server.js";
import { startFakeAnthropic, type ScriptedTurn } from "../fakes/index.js";
import { literalValues, makeRepo, sandboxMode, sessionInput } from "../integration/agent/helpers.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";

const call = (name: string, input: unknown): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const turnOf = (request: MessagesRequest) => ((request.messages as Array<{ role: string }> | undefined) ?? []).filter((m) => m.role === "assistant").length;
type Block = { type: string; content?: string; is_error?: boolean };
const lastResult = (request: MessagesRequest) =>
  ((request.messages as Array<{ content: Block[] }>).at(-1)!.content as Block[]).find((b) => b.type === "tool_result");

describe("an mcp__ deny hook", () => {
  let base: string | undefined;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    if (base !== undefined) removeDir(base);
  });

  it.each([
    ["CallMcpTool", { tool: "docs__tool1", arguments: { text: "secret plans" } }],
    ["mcp__docs__tool1 (activated)", { text: "secret plans" }],
  ])("denies %s, and the hook reads the canonical name and input on stdin", async (label, input) => {
    base = tempDir("mcp-hook");
    const repo = await makeRepo(base);
    const server = await startFakeMcpServer(1);
    closers.push(() => server.close());
    const activated = label.startsWith("mcp__");
    const steps: ScriptedTurn[] = [
      ...(activated ? [call("LoadMcpTools", { activate: ["docs__tool1"] })] : []),
      call(activated ? "mcp__docs__tool1" : "CallMcpTool", input),
      call("task_done", { summary: "Tried." }),
    ];
    const fake = await startFakeAnthropic((request) => steps[Math.min(turnOf(request), steps.length - 1)]!, { minCacheableTokens: 0 });
    closers.push(() => fake.close());
    const workspace: Workspace = await openLocalWorkspace({
      repoPath: repo,
      branch: "tackle/local-mcp-hook",
      home: path.join(base, "home"),
      sandbox: sandboxMode,
    });
    closers.push(() => workspace.dispose());
    const log = path.join(workspace.fs.root, "hook-stdin.json");
    const config = {
      ...defaultRepoConfig(),
      hooks: { PreToolUse: [{ matcher: "mcp__docs__.*", command: `cat > ${log}; echo 'no docs calls in this repository' >&2; exit 2` }], PostToolUse: [] },
    };
    const mcp = createMcpPort({
      servers: [{ name: "docs", kind: "http", url: server.url, headers: literalValues(), trusted: true }],
      http: createHttpClient({ rules: createDestinationRules([server.address]) }),
    });
    const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
    const outcome = await runAgentSession(sessionInput(workspace, model, path.join(base, "home"), { config, mcp }));

    expect(outcome.result.reason).toBe("task_done");
    const result = lastResult(fake.requests.at(-1)!.body);
    expect(result).toMatchObject({ is_error: true, content: "Denied by a PreToolUse hook: no docs calls in this repository" });
    expect(server.calls).toEqual([]);
    const stdin = JSON.parse(await readFile(log, "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "mcp__docs__tool1", tool_input: { text: "secret plans" } });
    if (!activated) expect(stdin).toMatchObject({ original_tool_name: "CallMcpTool", original_tool_input: input });
    expect(outcome.hookDenials).toEqual([activated ? "mcp__docs__tool1" : "CallMcpTool"]);
  });
});
