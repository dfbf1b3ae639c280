import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import { CUT_OFF_TEXT, runAgent } from "../../../src/agent/loop.js";
import { buildSystemPrompt } from "../../../src/agent/prompt/build-system-prompt.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from "../../fakes/fake-anthropic.js";
import { BUDGETS, testContext, testRunner } from "./helpers.js";
import { masked } from "../../fakes/masked.js";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const system = buildSystemPrompt({
  repo: "octo/widgets",
  branch: "tackle/issue-7",
  baseBranch: "main",
  instructionFiles: [{ path: "AGENTS.md", content: "Run `npm test` before committing.\n".repeat(150) }],
});

async function run(script: ScriptedTurn[]) {
  fake = await startFakeAnthropic(script);
  const tools = testRunner({}, 1_500);
  const result = await runAgent({
    model: createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url }),
    modelName: "claude-sonnet-4-6",
    tools,
    ctx: testContext(),
    system,
    initialMessage: masked("Fix issue #7."),
    budgets: BUDGETS,
    signal: new AbortController().signal,
  });
  return { result, tools, fake };
}

describe("the agent loop against the fake Anthropic API", () => {
  it("parses a streamed tool_use reply and retries a 529", async () => {
    const { result, tools, fake } = await run([
      {
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", name: "Echo", input: { text: "hello" } },
        ],
      },
      { error: { status: 529 }, retryAfterMs: 5 },
      { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }] },
    ]);
    expect(result).toMatchObject({ reason: "task_done", summary: "done", turns: 2 });
    expect(tools.batches[0]).toMatchObject([{ name: "Echo", input: { text: "hello" } }]);
    expect(fake.requests.map((r) => r.status)).toEqual([200, 529, 200]);
    expect(fake.requests.every((r) => r.stream)).toBe(true);
  });

  it("does not run a tool call whose streamed input was cut by max_tokens", async () => {
    const { result, tools, fake } = await run([
      { content: [{ type: "tool_use", name: "Write", partialJson: '{"file_path": "a.ts", "content": "export const' }] },
      { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }] },
    ]);
    expect(result.reason).toBe("task_done");
    expect(tools.batches.map((b) => b.map((c) => c.name))).toEqual([["task_done"]]);
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toContain(CUT_OFF_TEXT);
  });

  it("hands a tool call with malformed JSON input to the runner marked, and sends it back as a valid tool_use", async () => {
    const raw = '{"text": "say "hi""}';
    const { result, tools, fake } = await run([
      { content: [{ type: "tool_use", name: "Echo", id: "toolu_bad", rawInputJson: raw }] },
      { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }] },
    ]);
    expect(result).toMatchObject({ reason: "task_done", turns: 2 });
    expect(tools.batches[0]).toEqual([{ id: "toolu_bad", name: "Echo", input: {}, invalidInput: { error: expect.any(String) as unknown, raw } }]);
    expect(fake.requests).toHaveLength(2);
    const history = fake.requests[1]?.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(history.at(-2)?.content).toEqual([{ type: "tool_use", id: "toolu_bad", name: "Echo", input: {} }]);
  });

  it("retries a stream cut mid-way, and the run goes on", async () => {
    const { result, fake } = await run([
      {
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", name: "Echo", input: { text: "hello" } },
        ],
        cutAfterEvents: 5,
      },
      { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }] },
    ]);
    expect(result).toMatchObject({ reason: "task_done", turns: 1 });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]?.body.messages).toEqual(fake.requests[0]?.body.messages);
  });

  it("reads most input tokens from the cache over a long session", async () => {
    const script: ScriptedTurn[] = [];
    for (let turn = 1; turn < 20; turn++) {
      script.push({ content: [{ type: "tool_use", name: "Echo", input: { text: `step ${turn} ${"log\n".repeat(100)}` } }] });
    }
    script.push({ content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }] });
    const { result } = await run(script);
    expect(result.reason).toBe("task_done");
    const { input, cacheRead, cacheWrite } = result.usage;
    expect(cacheRead / (input + cacheRead + cacheWrite)).toBeGreaterThanOrEqual(0.9);
  });
});
