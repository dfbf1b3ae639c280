import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { assembleRequest } from "../../../src/agent/prompt/assemble-request.js";
import { toChatCompletionRequest } from "../../../src/agent/to-chat-completion-request.js";

type MessageParam = Anthropic.Messages.MessageParam;

const READ = {
  name: "Read",
  description: "Reads a file.",
  input_schema: { type: "object" as const, properties: { file_path: { type: "string" } }, required: ["file_path"] },
};
const WRITE = { name: "Write", description: "Writes a file.", input_schema: { type: "object" as const, properties: {} } };

describe("toChatCompletionRequest", () => {
  it("puts the system text first, maps the tools without cache marks, and always streams with usage", () => {
    const chat = toChatCompletionRequest({
      model: "qwen3-coder",
      max_tokens: 4096,
      system: [
        { type: "text", text: "You are Tackle.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Be brief." },
      ],
      tools: [{ ...READ, cache_control: { type: "ephemeral" } }, WRITE],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      stop_sequences: ["END"],
      messages: [{ role: "user", content: "Fix the bug." }],
    });
    expect(chat).toEqual({
      model: "qwen3-coder",
      messages: [
        { role: "system", content: "You are Tackle.\n\nBe brief." },
        { role: "user", content: "Fix the bug." },
      ],
      tools: [
        { type: "function", function: { name: "Read", description: "Reads a file.", parameters: READ.input_schema } },
        { type: "function", function: { name: "Write", description: "Writes a file.", parameters: WRITE.input_schema } },
      ],
      tool_choice: "required",
      parallel_tool_calls: false,
      max_tokens: 4096,
      stop: ["END"],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(JSON.stringify(chat)).not.toContain("cache_control");
  });

  it("maps tool_choice auto, none and a named tool; no tools means no tool fields", () => {
    const base: MessageRequest = { model: "m", max_tokens: 10, tools: [READ], messages: [{ role: "user", content: "x" }] };
    expect(toChatCompletionRequest({ ...base, tool_choice: { type: "auto" } }).tool_choice).toBe("auto");
    expect(toChatCompletionRequest({ ...base, tool_choice: { type: "none" } }).tool_choice).toBe("none");
    expect(toChatCompletionRequest({ ...base, tool_choice: { type: "tool", name: "Read" } }).tool_choice).toEqual({
      type: "function",
      function: { name: "Read" },
    });
    const bare = toChatCompletionRequest({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }], tool_choice: { type: "auto" } });
    expect(bare).not.toHaveProperty("tools");
    expect(bare).not.toHaveProperty("tool_choice");
    expect(bare.messages).toEqual([{ role: "user", content: "x" }]);
  });

  it("turns tool_use blocks into tool_calls and tool_result blocks into tool messages, before the user's text", () => {
    const chat = toChatCompletionRequest({
      model: "m",
      max_tokens: 100,
      messages: [
        { role: "user", content: [{ type: "text", text: "Fix it." }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "text", text: "Reading both." },
            { type: "tool_use", id: "call_1", name: "Read", input: { file_path: "a.js" } },
            { type: "tool_use", id: "call_2", name: "Read", input: { file_path: "b.js" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "(state: turn 2)" },
            { type: "tool_result", tool_use_id: "call_1", content: "1\tconst a = 1;" },
            { type: "tool_result", tool_use_id: "call_2", content: "no such file: b.js", is_error: true },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "call_3", name: "Write", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "call_3", content: [{ type: "text", text: "written" }], cache_control: { type: "ephemeral" } }],
        },
        { role: "assistant", content: "Done." },
      ],
    });
    expect(chat.messages).toEqual([
      { role: "user", content: "Fix it." },
      {
        role: "assistant",
        content: "Reading both.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "Read", arguments: '{"file_path":"a.js"}' } },
          { id: "call_2", type: "function", function: { name: "Read", arguments: '{"file_path":"b.js"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "1\tconst a = 1;" },
      { role: "tool", tool_call_id: "call_2", content: "Error: no such file: b.js" },
      { role: "user", content: "(state: turn 2)" },
      // Calls alone: null content, as the API itself answers such a message.
      { role: "assistant", content: null, tool_calls: [{ id: "call_3", type: "function", function: { name: "Write", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_3", content: "written" },
      { role: "assistant", content: "Done." },
    ]);
    expect(JSON.stringify(chat)).not.toContain("hmm");
  });

  it("gives an empty tool result some text, and marks an empty failed one as an error", () => {
    const chat = toChatCompletionRequest({
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "a", name: "Read", input: {} },
            { type: "tool_use", id: "b", name: "Read", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "a", content: "" },
            { type: "tool_result", tool_use_id: "b", is_error: true },
          ],
        },
      ],
    });
    expect(chat.messages.slice(1)).toEqual([
      { role: "tool", tool_call_id: "a", content: "(no output)" },
      { role: "tool", tool_call_id: "b", content: "Error: (no output)" },
    ]);
  });

  it("keeps the prefix byte-stable from turn to turn: only the newest user message (the state text) changes", () => {
    const turn = (history: MessageParam[], state: string) =>
      toChatCompletionRequest(assembleRequest({ model: "m", maxTokens: 100, system: "You are Tackle.", tools: [READ, WRITE], history, stateText: state }));
    const call = (id: string, file: string): MessageParam => ({
      role: "assistant",
      content: [{ type: "tool_use", id, name: "Read", input: { file_path: file } }],
    });
    const result = (id: string, text: string): MessageParam => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] });
    const history2: MessageParam[] = [{ role: "user", content: "Fix the bug." }, call("c1", "a.js"), result("c1", "A")];
    const history3: MessageParam[] = [...history2, call("c2", "b.js"), result("c2", "B")];
    const second = turn(history2, "state 2");
    const third = turn(history3, "state 3");

    expect(second.messages.at(-1)).toEqual({ role: "user", content: "state 2" });
    expect(third.messages.at(-1)).toEqual({ role: "user", content: "state 3" });
    const stable = second.messages.slice(0, -1);
    expect(JSON.stringify(third.messages.slice(0, stable.length))).toBe(JSON.stringify(stable));
    expect(JSON.stringify(third.tools)).toBe(JSON.stringify(second.tools));
    // The state text lives in its own user message after the tool results: no history message carries it.
    expect(JSON.stringify(third.messages.slice(0, -1))).not.toContain("state");
  });
});
