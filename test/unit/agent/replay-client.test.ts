import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/loop.js";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { createReplayClient } from "../../../src/agent/replay-client.js";
import { isTackleError } from "../../../src/errors/tackle-error.js";
import { BUDGETS, testContext, testRunner } from "./helpers.js";
import { masked } from "../../fakes/masked.js";

const request: MessageRequest = { model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: "x" }] };
const signal = new AbortController().signal;

const handWritten = [
  JSON.stringify({
    type: "response",
    message: { content: [{ type: "tool_use", name: "Read", input: { file_path: "a.ts" } }], stop_reason: "tool_use" },
  }),
  "",
  JSON.stringify({ type: "response", message: { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" } }),
];

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("createReplayClient", () => {
  it("serves responses in order, filling defaults for a hand-written transcript", async () => {
    const client = createReplayClient(handWritten);
    expect(client.remaining).toBe(2);
    const first = await client.create(request, signal);
    expect(first).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      stop_reason: "tool_use",
      usage: { input_tokens: 0, output_tokens: 0 },
      content: [{ type: "tool_use", name: "Read", input: { file_path: "a.ts" } }],
    });
    expect(first.id).toMatch(/^msg_replay_1/);
    const block = first.content[0];
    expect(block?.type === "tool_use" && block.id).toMatch(/^toolu_replay_/);
    const second = await client.create(request, signal);
    expect(second.content).toEqual([{ type: "text", text: "done", citations: null }]);
    expect(client.remaining).toBe(0);
  });

  it("fails clearly past the end of the transcript", async () => {
    const client = createReplayClient(handWritten, { name: "demo.jsonl" });
    await client.create(request, signal);
    await client.create(request, signal);
    const error = await rejection(client.create(request, signal));
    expect(isTackleError(error, "replay_exhausted")).toBe(true);
    expect((error as Error).message).toBe("replay transcript demo.jsonl has 2 responses; the run asked for response 3");
    expect(isTackleError(error) && error.retryable).toBe(false);
  });

  it("names the line that does not validate", () => {
    const bad = [...handWritten, JSON.stringify({ type: "response", message: { content: [] } })];
    expect(() => createReplayClient(bad, { name: "t.jsonl" })).toThrow(/replay transcript t\.jsonl line 4: .*stop_reason/);
    expect(() => createReplayClient(["{not json"], { name: "t.jsonl" })).toThrow(/line 1: not JSON/);
    expect(() => createReplayClient([JSON.stringify({ type: "mystery" })], { name: "t.jsonl" })).toThrow(/line 1/);
    expect(() => createReplayClient([JSON.stringify({ type: "meta", version: 99, jobId: "j", model: "m", startedAt: "x" })])).toThrow(/line 1/);
  });

  it("reads a file and replays its last run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tackle-replay-"));
    try {
      const path = join(dir, "job.jsonl");
      const meta = JSON.stringify({ type: "meta", version: 1, jobId: "j", model: "m", startedAt: "2025-01-01T00:00:00Z" });
      const response = (word: string) =>
        JSON.stringify({ type: "response", turn: 1, message: { content: [{ type: "text", text: word }], stop_reason: "end_turn" } });
      await writeFile(path, [meta, response("first run"), meta, response("second run"), ""].join("\n"));
      const client = createReplayClient(path);
      expect(client.remaining).toBe(1);
      const message = await client.create(request, signal);
      expect(message.content[0]).toMatchObject({ text: "second run" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reports a missing file and an aborted call", async () => {
    expect(() => createReplayClient("/nonexistent/transcript.jsonl")).toThrow(/cannot read replay transcript/);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(createReplayClient(handWritten).create(request, controller.signal));
    expect(isTackleError(error, "aborted")).toBe(true);
  });

  it("hands out copies, so a caller cannot alter the recording", async () => {
    const client = createReplayClient([handWritten[2] as string, handWritten[2] as string]);
    const first = await client.create(request, signal);
    (first.content[0] as { text: string }).text = "changed";
    const second = await client.create(request, signal);
    expect(second.content[0]).toMatchObject({ text: "done" });
  });

  it("drives a whole run from the hand-written example in docs/transcript-format.md", async () => {
    const lines = [
      '{"type":"response","message":{"content":[{"type":"tool_use","name":"Echo","input":{"text":"README"}}],"stop_reason":"tool_use"}}',
      '{"type":"response","message":{"content":[{"type":"tool_use","name":"task_done","input":{"summary":"Read the README."}}],"stop_reason":"tool_use"}}',
    ];
    const tools = testRunner();
    const result = await runAgent({
      model: createReplayClient(lines),
      modelName: "claude-haiku-4-5",
      tools,
      ctx: testContext(),
      system: "s",
      initialMessage: masked("t"),
      budgets: BUDGETS,
      signal,
    });
    expect(result).toMatchObject({ reason: "task_done", summary: "Read the README.", turns: 2, costUsd: 0 });
    expect(tools.batches.map((b) => b.map((c) => c.id))).toEqual([["toolu_replay_1_0"], ["toolu_replay_2_0"]]);
  });

  it("replays a tool call recorded with invalid JSON input as the same marked call", async () => {
    const invalid = { error: "Expected ',' or '}' after property value in JSON at position 20", raw: '{"text": "say "hi""}' };
    const lines = [
      JSON.stringify({
        type: "response",
        message: { content: [{ type: "tool_use", id: "toolu_bad", name: "Echo", input: {}, invalid_input: invalid }], stop_reason: "tool_use" },
      }),
      JSON.stringify({
        type: "response",
        message: { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }], stop_reason: "tool_use" },
      }),
    ];
    const tools = testRunner();
    const result = await runAgent({
      model: createReplayClient(lines),
      modelName: "claude-haiku-4-5",
      tools,
      ctx: testContext(),
      system: "s",
      initialMessage: masked("t"),
      budgets: BUDGETS,
      signal,
    });
    expect(result.reason).toBe("task_done");
    expect(tools.batches[0]).toEqual([{ id: "toolu_bad", name: "Echo", input: {}, invalidInput: invalid }]);
  });
});

describe("createReplayClient with a version 2 transcript", () => {
  const line = (agent: string, text: string) =>
    JSON.stringify({ type: "response", agent, turn: 1, message: { content: [{ type: "text", text }], stop_reason: "end_turn" } });

  it("serves each conversation its own responses, whatever order they are asked in", async () => {
    const lines = [
      JSON.stringify({ type: "meta", version: 2 }),
      line("main", "main 1"),
      line("main/1/1", "sub A 1"),
      line("main/1/2", "sub B 1"),
      line("main/1/2", "sub B 2"),
      line("main/1/1", "sub A 2"),
      line("main", "main 2"),
    ];
    const client = createReplayClient(lines);
    const text = async (agent: string) => {
      const message = await client.create(request, signal, { agent });
      return message.content[0]?.type === "text" ? message.content[0].text : "";
    };
    expect(await text("main/1/1")).toBe("sub A 1");
    expect(await text("main/1/1")).toBe("sub A 2");
    expect(await text("main")).toBe("main 1");
    expect(await text("main/1/2")).toBe("sub B 1");
    expect(await text("main")).toBe("main 2");
    expect(await text("main/1/2")).toBe("sub B 2");
    expect(client.remaining).toBe(0);
    const error = await rejection(client.create(request, signal, { agent: "main/1/1" }));
    expect(isTackleError(error, "replay_exhausted")).toBe(true);
    expect(String((error as Error).message)).toMatch(/has 2 responses for main\/1\/1; the run asked for response 3 for main\/1\/1/);
  });

  it("reads a version 1 transcript's lines as the job's own agent's", async () => {
    const client = createReplayClient([JSON.stringify({ type: "meta", version: 1 }), line("ignored", "x").replace(',"agent":"ignored"', "")]);
    const message = await client.create(request, signal, { agent: "main" });
    expect(message.content[0]).toMatchObject({ type: "text", text: "x" });
  });
});
