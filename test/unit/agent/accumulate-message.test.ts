import { failure } from "./helpers.js";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { accumulateMessage } from "../../../src/agent/accumulate-message.js";
import { messageStreamEvents } from "../../fakes/message-stream-events.js";

type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;

const USAGE = { input_tokens: 12, output_tokens: 30, cache_creation_input_tokens: 7, cache_read_input_tokens: 100 };

/** The events the Messages API streams for this message; `raw` replaces a tool call's input JSON by content index. */
function eventsOf(
  content: Array<{ type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown }>,
  raw = new Map<number, string>(),
): StreamEvent[] {
  const message = {
    id: "msg_1",
    type: "message" as const,
    role: "assistant" as const,
    model: "claude-sonnet-4-6",
    content,
    stop_reason: "tool_use",
    usage: USAGE,
  };
  return messageStreamEvents(message, raw).filter((event) => event.type !== "ping") as unknown as StreamEvent[];
}

describe("accumulateMessage", () => {
  it("assembles text and tool input streamed in pieces, with the final stop reason and usage", async () => {
    const message = await accumulateMessage(
      eventsOf([
        { type: "text", text: "Reading the file." },
        { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "src/a.ts", limit: 20 } },
      ]),
    );
    expect(message).toMatchObject({ id: "msg_1", role: "assistant", stop_reason: "tool_use", usage: USAGE });
    expect(message.content).toEqual([
      { type: "text", text: "Reading the file." },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "src/a.ts", limit: 20 } },
    ]);
  });

  it("keeps a tool call whose JSON does not parse, with input {} and the parser's complaint, and the blocks around it", async () => {
    const broken = '{"file_path": "src/a.ts", "old_string": "say "hi"", "new_string": "x"}';
    const message = await accumulateMessage(
      eventsOf(
        [
          { type: "text", text: "Editing." },
          { type: "tool_use", id: "toolu_bad", name: "Edit", input: {} },
          { type: "tool_use", id: "toolu_ok", name: "Read", input: { file_path: "b.ts" } },
        ],
        new Map([[1, broken]]),
      ),
    );
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toHaveLength(3);
    const bad = message.content[1];
    expect(bad).toMatchObject({ type: "tool_use", id: "toolu_bad", name: "Edit", input: {} });
    expect(bad?.type === "tool_use" && bad.invalid_input).toEqual({ error: expect.stringMatching(/JSON/) as unknown, raw: broken });
    expect(message.content[2]).toEqual({ type: "tool_use", id: "toolu_ok", name: "Read", input: { file_path: "b.ts" } });
    expect(message.content[2]).not.toHaveProperty("invalid_input");
  });

  it("marks a tool call whose input nests deeper than 64 levels, and takes one at 64 (brackets inside strings do not count)", async () => {
    const deep = `{"command": "ls", "pad": ${"[".repeat(64)}1${"]".repeat(64)}}`;
    const fine = `{"command": "ls", "pad": ${"[".repeat(63)}"[[[[]"${"]".repeat(63)}}`;
    const message = await accumulateMessage(
      eventsOf(
        [
          { type: "tool_use", id: "toolu_deep", name: "Bash", input: {} },
          { type: "tool_use", id: "toolu_fine", name: "Bash", input: {} },
        ],
        new Map([
          [0, deep],
          [1, fine],
        ]),
      ),
    );
    const [deepBlock, fineBlock] = message.content;
    expect(deepBlock).toMatchObject({ input: {}, invalid_input: { raw: deep, error: expect.stringContaining("nests more than 64 levels deep") as unknown } });
    expect(fineBlock).not.toHaveProperty("invalid_input");
    expect(fineBlock?.type === "tool_use" && (fineBlock.input as { command: string }).command).toBe("ls");
  });

  it("reads a tool call without parameters (only the empty opening delta) as input {}", async () => {
    const message = await accumulateMessage(eventsOf([{ type: "tool_use", id: "toolu_1", name: "GetIssue", input: {} }], new Map([[0, ""]])));
    expect(message.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "GetIssue", input: {} }]);
  });

  it("accumulates thinking and its signature", async () => {
    const [start, ...rest] = eventsOf([]);
    const events = [
      start,
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "First, " } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "read it." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-1" } },
      { type: "content_block_stop", index: 0 },
      ...rest,
    ] as StreamEvent[];
    const message = await accumulateMessage(events);
    expect(message.content).toEqual([{ type: "thinking", thinking: "First, read it.", signature: "sig-1" }]);
  });

  it("takes whole-message usage totals from message_delta without adding them up", async () => {
    const events = eventsOf([{ type: "text", text: "ok" }]).map((event) =>
      event.type === "message_delta" ? { ...event, usage: { ...event.usage, input_tokens: 40, cache_read_input_tokens: null } } : event,
    ) as StreamEvent[];
    const message = await accumulateMessage(events);
    expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 30, cache_read_input_tokens: 100 });
  });

  it("checks the cache write's breakdown by TTL too, which pricing reads, and names the field and the sender", async () => {
    const withBreakdown = (ttl1h: number) =>
      eventsOf([{ type: "text", text: "ok" }]).map((event) =>
        event.type === "message_start"
          ? {
              ...event,
              message: {
                ...event.message,
                usage: { ...event.message.usage, cache_creation: { ephemeral_5m_input_tokens: 7, ephemeral_1h_input_tokens: ttl1h } },
              },
            }
          : event,
      ) as StreamEvent[];
    expect((await accumulateMessage(withBreakdown(0))).usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 7, ephemeral_1h_input_tokens: 0 });
    const error = await failure(accumulateMessage(withBreakdown(-7_000_000), "Bedrock"));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toMatch(/^Bedrock reported usage\.cache_creation\.ephemeral_1h_input_tokens of message_start = -7000000,/);
  });

  it("keeps message_start's counts when message_delta sends no usage, and reads a message_start without usage as 0", async () => {
    const events = eventsOf([{ type: "text", text: "ok" }]);
    const noDeltaUsage = events.map((event) => (event.type === "message_delta" ? { ...event, usage: undefined } : event)) as unknown as StreamEvent[];
    expect((await accumulateMessage(noDeltaUsage)).usage).toMatchObject({ input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 100 });
    const noUsage = events.map((event) =>
      event.type === "message_start"
        ? { ...event, message: { ...event.message, usage: undefined } }
        : event.type === "message_delta"
          ? { ...event, usage: {} }
          : event,
    ) as unknown as StreamEvent[];
    expect((await accumulateMessage(noUsage)).usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });

  it("rejects a stream that ends before message_stop (a cut connection) as a retryable model error", async () => {
    const events = eventsOf([{ type: "tool_use", id: "toolu_1", name: "Write", input: { file_path: "a.ts", content: "x".repeat(50) } }]);
    const cut = events.slice(
      0,
      events.findIndex((event) => event.type === "content_block_stop"),
    );
    expect(await failure(accumulateMessage(cut))).toMatchObject({ code: "model_api", retryable: true });
    expect(await failure(accumulateMessage([]))).toMatchObject({ code: "model_api", retryable: true });
  });

  it("rejects events out of order", async () => {
    const events = eventsOf([{ type: "text", text: "ok" }]);
    expect(await failure(accumulateMessage(events.slice(1)))).toMatchObject({ code: "model_api", retryable: true });
    expect(await failure(accumulateMessage([events[0]!, ...events]))).toMatchObject({ code: "model_api" });
  });
});
