// Read-only Task calls of one reply all ran at once, with no bound on how many: each subagent checked
// the job's shared spend only before its own turn, so N parallel subagents started N turns against a
// budget that had room for one, and the job spent many times max_cost_usd ($20 of a $2 budget here).
// Now at most MAX_PARALLEL_SUBAGENTS run at once, calls in flight count as spent, and the ones that
// wait find the budget gone: the overshoot is at most one turn per slot.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/anthropic-client.js";
import { MAX_PARALLEL_SUBAGENTS } from "../../src/agent/subagents.js";
import { defaultRepoConfig } from "../../src/config/index.js";
import { runAgentSession } from "../../src/worker/run-agent-session.js";
import { openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import type { MessagesRequest } from "../fakes/fake-anthropic.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from "../fakes/index.js";
import { makeRepo, sandboxMode, sessionInput } from "../integration/agent/helpers.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";

const FAN_OUT = 20;
/** 1,000,000 input tokens of claude-sonnet-4-6 at $3/M: $1 a turn (the max_tokens reserve is small beside it). */
const EXPENSIVE = { input_tokens: 333_334, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function route(request: MessagesRequest): ScriptedTurn {
  const first = (request.messages as Array<{ content: unknown }>)[0];
  const text = JSON.stringify(first?.content ?? "");
  const turn = (request.messages as Array<{ role: string }>).filter((m) => m.role === "assistant").length + 1;
  if (text.includes("Your task, from the agent")) {
    return turn === 1
      ? { content: [{ type: "tool_use", name: "Glob", input: { pattern: "*" } }], usage: EXPENSIVE, delayMs: 100 }
      : { content: [{ type: "text", text: "found it" }], usage: EXPENSIVE };
  }
  if (turn === 1) {
    return {
      content: Array.from({ length: FAN_OUT }, (_, i) => ({
        type: "tool_use" as const,
        name: "Task",
        input: { description: `look ${i}`, prompt: `Find thing ${i}`, subagent_type: "explore" },
      })),
    };
  }
  return { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }] };
}

describe("the job's cost budget with parallel subagents", () => {
  let base: string | undefined;
  const fakes: FakeAnthropic[] = [];
  const workspaces: Workspace[] = [];
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close();
    for (const workspace of workspaces.splice(0)) await workspace.dispose();
    if (base !== undefined) removeDir(base);
  });

  it("spends at most about max_cost_usd, whatever the fan-out", async () => {
    base = tempDir("fanout");
    const repo = await makeRepo(base);
    const fake = await startFakeAnthropic(route, { minCacheableTokens: 0 });
    fakes.push(fake);
    const home = path.join(base, "home");
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-fanout", home, sandbox: sandboxMode });
    workspaces.push(workspace);
    const maxCostUsd = 2;
    const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
    const outcome = await runAgentSession(
      sessionInput(workspace, model, home, {
        config: { ...defaultRepoConfig(), max_cost_usd: maxCostUsd },
        task: { title: "fan out", body: "Look everywhere.", kind: "local", actor: "dev" },
      }),
    );
    // One $1 turn per slot may overshoot a budget checked before each turn; twenty may not.
    expect(outcome.result.costUsd).toBeLessThanOrEqual(maxCostUsd + MAX_PARALLEL_SUBAGENTS * 1.01);
    const subagentCalls = fake.requests.filter((request) => JSON.stringify(request.body.messages?.[0] ?? "").includes("Your task, from the agent"));
    expect(subagentCalls.length).toBeLessThanOrEqual(MAX_PARALLEL_SUBAGENTS);
    expect(outcome.result.reason).toBe("max_cost");
  }, 60_000);
});
