import { describe, expect, it } from "vitest";
import { CUT_OFF_REPLY_TEXT, CUT_OFF_TEXT, NUDGE_TEXT, runAgent, type AgentProgressEvent, type RunAgentOptions } from "../../../src/agent/loop.js";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { STATE_BLOCK_TAG } from "../../../src/agent/prompt/render-state.js";
import { TackleError } from "../../../src/errors/tackle-error.js";
import { BUDGETS, lastUserBlocks, reply, scriptedModel, testContext, testRunner, text, toolUse, type Script } from "./helpers.js";
import { masked } from "../../fakes/masked.js";

function setup(script: Script, overrides: Partial<RunAgentOptions> = {}) {
  const model = scriptedModel(script);
  const tools = testRunner();
  const controller = new AbortController();
  const ctx = testContext(controller.signal);
  const events: AgentProgressEvent[] = [];
  const options: RunAgentOptions = {
    model,
    modelName: "claude-sonnet-4-5",
    tools,
    ctx,
    system: "You are a test agent.",
    initialMessage: masked("Fix issue #1."),
    budgets: BUDGETS,
    signal: controller.signal,
    onProgress: (event) => events.push(event),
    ...overrides,
  };
  return { model, tools, ctx, controller, events, options };
}

function stateBlock(request: MessageRequest): string {
  const last = lastUserBlocks(request).at(-1);
  return String(last?.text);
}

describe("runAgent", () => {
  it("ends with task_done and its summary", async () => {
    const { options, model } = setup([reply([text("Done."), toolUse("task_done", { summary: "Fixed the bug" })])]);
    const result = await runAgent(options);
    expect(result).toMatchObject({ reason: "task_done", summary: "Fixed the bug", turns: 1 });
    expect(result.reasonText).toMatch(/finished/);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.max_tokens).toBe(BUDGETS.maxOutputTokensPerTurn);
    expect(model.requests[0]?.model).toBe("claude-sonnet-4-5");
  });

  it("runs every tool_use of a reply in one batch and answers them in order", async () => {
    const { options, model, tools } = setup([
      reply([text("Let me look."), toolUse("Echo", { text: "one" }, "t1"), toolUse("Nope", {}, "t2"), toolUse("Echo", { text: "three" }, "t3")]),
      reply([toolUse("task_done", { summary: "ok" })]),
    ]);
    const result = await runAgent(options);
    expect(result.reason).toBe("task_done");
    expect(tools.batches[0]?.map((c) => c.id)).toEqual(["t1", "t2", "t3"]);

    const blocks = lastUserBlocks(model.requests[1] as MessageRequest);
    expect(blocks.slice(0, 3)).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "one" },
      { type: "tool_result", tool_use_id: "t2", content: "unknown tool Nope", is_error: true },
      { type: "tool_result", tool_use_id: "t3", content: "three", cache_control: { type: "ephemeral" } },
    ]);
    expect(String(blocks[3]?.text)).toContain(STATE_BLOCK_TAG);
    // The assistant reply went back into the history as sent.
    const assistant = model.requests[1]?.messages[1];
    expect(assistant?.role).toBe("assistant");
    expect(assistant?.content).toHaveLength(4);
  });

  it("nudges once after a reply without tool calls, and ends on the second", async () => {
    const { options, model, events } = setup([reply([text("I think the fix is X.")]), reply([text("All done, the fix is X.")])]);
    const result = await runAgent(options);
    expect(result).toMatchObject({ reason: "no_tool_calls", turns: 2, summary: "All done, the fix is X." });
    expect(lastUserBlocks(model.requests[1] as MessageRequest)[0]).toMatchObject({ type: "text", text: NUDGE_TEXT });
    expect(events.filter((e) => e.type === "nudged")).toHaveLength(1);
  });

  it("tells a reply cut off in its text to keep replies short", async () => {
    const { options, model } = setup([
      reply([text("A very long explanation")], { stop_reason: "max_tokens" }),
      reply([toolUse("task_done", { summary: "s" })]),
    ]);
    expect((await runAgent(options)).reason).toBe("task_done");
    expect(lastUserBlocks(model.requests[1] as MessageRequest)[0]).toMatchObject({ text: CUT_OFF_REPLY_TEXT });
  });

  it("resets the nudge after a reply that calls tools", async () => {
    const { options } = setup([
      reply([text("thinking")]),
      reply([toolUse("Echo", { text: "x" })]),
      reply([text("thinking again")]),
      reply([toolUse("task_done", { summary: "s" })]),
    ]);
    expect((await runAgent(options)).reason).toBe("task_done");
  });

  it("does not run a tool call cut off by max_tokens, and tells the model to retry smaller", async () => {
    const { options, model, tools } = setup([
      reply([toolUse("Echo", { text: "complete" }, "ok1"), toolUse("Write", { file_path: "big.ts", content: "export const a = [1, 2," }, "cut1")], {
        stop_reason: "max_tokens",
      }),
      reply([toolUse("task_done", { summary: "s" })]),
    ]);
    await runAgent(options);
    expect(tools.batches[0]?.map((c) => c.name)).toEqual(["Echo"]);
    const blocks = lastUserBlocks(model.requests[1] as MessageRequest);
    expect(blocks[0]).toMatchObject({ tool_use_id: "ok1", content: "complete" });
    expect(blocks[1]).toMatchObject({ tool_use_id: "cut1", content: CUT_OFF_TEXT, is_error: true });
    expect(CUT_OFF_TEXT).toMatch(/smaller input/);
  });

  it("runs nothing when the only call of a max_tokens reply is cut off", async () => {
    const { options, tools } = setup([
      reply([toolUse("Write", { file_path: "a" }, "c")], { stop_reason: "max_tokens" }),
      reply([toolUse("task_done", { summary: "s" })]),
    ]);
    await runAgent(options);
    expect(tools.batches.map((b) => b.map((c) => c.name))).toEqual([["task_done"]]);
  });

  it("stops at max turns", async () => {
    const echo = reply([toolUse("Echo", { text: "again" })]);
    const { options, model } = setup([echo, echo, echo, echo], { budgets: { ...BUDGETS, maxTurns: 3 } });
    const result = await runAgent(options);
    expect(result).toMatchObject({ reason: "max_turns", turns: 3 });
    expect(result.reasonText).toContain("3 turns");
    expect(model.requests).toHaveLength(3);
  });

  it("stops before a turn that would exceed the cost budget", async () => {
    // 100k uncached input tokens of claude-sonnet-4-5 at $3/M: $0.30 a turn.
    const costly = reply([toolUse("Echo", { text: "x" })], { input_tokens: 100_000, output_tokens: 0 });
    const { options } = setup([costly, costly, costly], { budgets: { ...BUDGETS, maxCostUsd: 0.7 } });
    const result = await runAgent(options);
    expect(result.reason).toBe("max_cost");
    expect(result.turns).toBe(2);
    expect(result.costUsd).toBeCloseTo(0.6, 6);
    expect(result.costUsd).toBeLessThanOrEqual(0.7);
    expect(result.usage).toEqual({ input: 200_000, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it("stops at the deadline, on the injected clock", async () => {
    let now = 0;
    const slowReply = async () => {
      now += 10 * 60_000;
      return reply([toolUse("Echo", { text: "x" })]);
    };
    const { options } = setup([slowReply, slowReply, slowReply, slowReply], {
      clock: () => now,
      budgets: { ...BUDGETS, deadline: 25 * 60_000 },
    });
    const result = await runAgent(options);
    expect(result).toMatchObject({ reason: "deadline", turns: 3 });
  });

  it("cuts a model call still running at the deadline", async () => {
    const hang = (_request: MessageRequest, signal: AbortSignal) =>
      new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(new TackleError("aborted", "aborted"))));
    const { options } = setup([hang], { budgets: { ...BUDGETS, deadline: Date.now() + 50 } });
    const result = await runAgent(options);
    expect(result).toMatchObject({ reason: "deadline", turns: 1 });
  });

  it("ends with aborted when the signal fires during a model call or between turns", async () => {
    const hang = (_request: MessageRequest, signal: AbortSignal) =>
      new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(new TackleError("aborted", "aborted"))));
    const first = setup([hang]);
    setTimeout(() => first.controller.abort(), 20);
    expect((await runAgent(first.options)).reason).toBe("aborted");

    const second = setup([reply([toolUse("Stop", {})]), reply([toolUse("task_done", { summary: "s" })])]);
    second.options.tools = testRunner({
      Stop: () => {
        second.controller.abort();
        return "stopping";
      },
    });
    const result = await runAgent(second.options);
    expect(result).toMatchObject({ reason: "aborted", turns: 1 });
    expect(second.model.requests).toHaveLength(1);
  });

  it("returns model_error with the client's retryable flag", async () => {
    const { options } = setup([new TackleError("model_api", "Anthropic API HTTP 529: Overloaded", { retryable: true })]);
    const result = await runAgent(options);
    expect(result).toMatchObject({ reason: "model_error", retryable: true, turns: 1 });
    expect(result.error).toContain("529");
    expect(result.reasonText).toMatch(/temporary/);

    const denied = setup([new TackleError("model_api", "Anthropic API HTTP 401: invalid x-api-key", { retryable: false })]);
    expect(await runAgent(denied.options)).toMatchObject({ reason: "model_error", retryable: false });
  });

  it("reports progress: turns, tool calls with short args, todo changes", async () => {
    const { options, events } = setup([
      reply([
        toolUse("TodoWrite", { todos: [{ content: "reproduce", status: "in_progress" }] }),
        toolUse("Write", { file_path: "src/a.ts", content: "x".repeat(500) }),
      ]),
      reply([toolUse("task_done", { summary: "s" })]),
    ]);
    await runAgent(options);
    expect(events.map((e) => e.type)).toEqual(["turn_started", "turn_finished", "tool_calls", "todos_changed", "turn_started", "turn_finished", "tool_calls"]);
    const calls = events.find((e) => e.type === "tool_calls");
    expect(calls).toMatchObject({
      calls: [
        { name: "TodoWrite", args: expect.stringContaining("reproduce") },
        { name: "Write", args: "src/a.ts" },
      ],
    });
    expect(events.find((e) => e.type === "todos_changed")).toMatchObject({
      todos: [{ content: "reproduce", status: "in_progress" }],
    });
  });

  it("renders todos and notes in the state block of the newest message only", async () => {
    const { options, model } = setup([
      reply([toolUse("TodoWrite", { todos: [{ content: "write the test", status: "pending" }] })]),
      reply([toolUse("NoteWrite", { notes: ["tests run with npm test"] })]),
      reply([toolUse("task_done", { summary: "s" })]),
    ]);
    await runAgent(options);
    const third = model.requests[2] as MessageRequest;
    expect(stateBlock(third)).toContain("[ ] write the test");
    expect(stateBlock(third)).toContain("tests run with npm test");
    expect(stateBlock(third)).toMatch(/turn 3 of 50/);
    const older = JSON.stringify(third.messages.slice(0, -1));
    expect(older).not.toContain(STATE_BLOCK_TAG);
  });

  it("compacts older turns with a tool-less call and keeps todos and notes", async () => {
    const big = { input_tokens: 100, cache_read_input_tokens: 900 };
    const { options, model, events } = setup(
      [
        reply([toolUse("TodoWrite", { todos: [{ content: "fix parser", status: "in_progress" }] })], big),
        reply([toolUse("NoteWrite", { notes: ["parser lives in src/parse.ts"] })], big),
        reply([text("The agent read src/parse.ts and planned a fix.")]),
        reply([toolUse("task_done", { summary: "s" })]),
      ],
      { contextWindowTokens: 1_000, keepTurnsOnCompaction: 1 },
    );
    const result = await runAgent(options);
    expect(result.reason).toBe("task_done");
    expect(result.turns).toBe(3);
    expect(model.requests).toHaveLength(4);

    const summaryRequest = model.requests[2] as MessageRequest;
    expect(summaryRequest.tools).toBeUndefined();
    expect(JSON.stringify(summaryRequest.messages)).toContain("TodoWrite");

    const after = model.requests[3] as MessageRequest;
    expect(after.tools).toBeDefined();
    expect(after.messages).toHaveLength(3); // task + summary, then the kept turn (assistant, results)
    expect(JSON.stringify(after.messages[0])).toContain("planned a fix");
    expect(JSON.stringify(after.messages[0])).toContain("Fix issue #1.");
    expect(after.messages[1]?.role).toBe("assistant");
    expect(JSON.stringify(after.messages[1])).toContain("NoteWrite");
    expect(stateBlock(after)).toContain("fix parser");
    expect(stateBlock(after)).toContain("parser lives in src/parse.ts");
    expect(events.find((e) => e.type === "compacted")).toMatchObject({ summarizedMessages: 3, keptMessages: 2 });
  });

  it("counts compaction cost and ends with model_error when the summary call fails", async () => {
    const big = { input_tokens: 100, cache_read_input_tokens: 900 };
    const { options } = setup(
      [
        reply([toolUse("Echo", { text: "a" })], big),
        reply([toolUse("Echo", { text: "b" })], big),
        new TackleError("model_api", "HTTP 500", { retryable: true }),
      ],
      { contextWindowTokens: 1_000, keepTurnsOnCompaction: 1 },
    );
    expect(await runAgent(options)).toMatchObject({ reason: "model_error", retryable: true, turns: 2 });
  });

  it("records requests, responses, tool results and the end in the transcript", async () => {
    const lines: string[] = [];
    const sink = {
      request: async (turn: number, purpose: string) => void lines.push(`request ${turn} ${purpose}`),
      response: async (turn: number) => void lines.push(`response ${turn}`),
      toolResults: async (turn: number) => void lines.push(`tool_results ${turn}`),
      end: async (end: { reason: string }) => void lines.push(`end ${end.reason}`),
    };
    const { options } = setup([reply([toolUse("Echo", { text: "a" })]), reply([toolUse("task_done", { summary: "s" })])], {
      transcript: sink,
    });
    await runAgent(options);
    expect(lines).toEqual(["request 1 turn", "response 1", "tool_results 1", "request 2 turn", "response 2", "tool_results 2", "end task_done"]);
  });

  it("keeps running when the transcript cannot be written", async () => {
    const failing = {
      request: () => Promise.reject(new Error("disk full")),
      response: () => Promise.reject(new Error("disk full")),
      toolResults: () => Promise.reject(new Error("disk full")),
      end: () => Promise.reject(new Error("disk full")),
    };
    const { options } = setup([reply([toolUse("task_done", { summary: "s" })])], { transcript: failing });
    expect((await runAgent(options)).reason).toBe("task_done");
  });
});
