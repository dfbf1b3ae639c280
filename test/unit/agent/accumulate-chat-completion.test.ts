import { describe, expect, it } from "vitest";
import { accumulateChatCompletion } from "../../../src/agent/accumulate-chat-completion.js";
import { readSseData } from "../../../src/agent/read-sse-data.js";
import { isTackleError, type TackleError } from "../../../src/errors/tackle-error.js";

const MODEL = "qwen3-coder";

/** The data payloads of one stream: chunks as objects (serialized here) or raw strings such as `[DONE]`. */
async function* payloads(items: Array<Record<string, unknown> | string>): AsyncGenerator<string> {
  for (const item of items) yield typeof item === "string" ? item : JSON.stringify(item);
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ id: "chatcmpl-1", choices: [{ index: 0, delta: d, finish_reason: finish }] });
const usage = (prompt: number, completion: number, cached?: number) => ({
  id: "chatcmpl-1",
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }) },
});

async function rejection(promise: Promise<unknown>): Promise<TackleError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isTackleError(error)) throw new Error(`expected a TackleError, got ${String(error)}`);
  return error;
}

describe("accumulateChatCompletion", () => {
  it("joins text pieces and tool calls split across chunks; finish tool_calls is tool_use; cached tokens are cache reads", async () => {
    const message = await accumulateChatCompletion(
      payloads([
        delta({ role: "assistant", content: "" }),
        delta({ content: "Reading " }),
        delta({ content: "both files." }),
        delta({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "Read", arguments: "" } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"file_' } }] }),
        delta({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "Read", arguments: '{"file_path"' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'path":"a.js"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: ':"b.js"}' } }] }),
        delta({}, "tool_calls"),
        usage(1500, 42, 1024),
        "[DONE]",
      ]),
      MODEL,
    );
    expect(message).toMatchObject({
      id: "chatcmpl-1",
      type: "message",
      role: "assistant",
      model: MODEL,
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Reading both files." },
        { type: "tool_use", id: "call_a", name: "Read", input: { file_path: "a.js" } },
        { type: "tool_use", id: "call_b", name: "Read", input: { file_path: "b.js" } },
      ],
      usage: { input_tokens: 476, output_tokens: 42, cache_read_input_tokens: 1024, cache_creation_input_tokens: 0 },
    });
  });

  it("maps finish reasons: stop is end_turn, length is max_tokens, content_filter is refusal", async () => {
    const finish = async (reason: string) => (await accumulateChatCompletion(payloads([delta({ content: "x" }, reason), "[DONE]"]), MODEL)).stop_reason;
    expect(await finish("stop")).toBe("end_turn");
    expect(await finish("length")).toBe("max_tokens");
    expect(await finish("content_filter")).toBe("refusal");
  });

  it("a reply with calls is tool_use even when the server says stop, but stays max_tokens when cut", async () => {
    const call = delta({ tool_calls: [{ index: 0, id: "c", function: { name: "Read", arguments: "{}" } }] });
    expect((await accumulateChatCompletion(payloads([call, delta({}, "stop"), "[DONE]"]), MODEL)).stop_reason).toBe("tool_use");
    const cut = await accumulateChatCompletion(
      payloads([delta({ tool_calls: [{ index: 0, id: "c", function: { name: "Write", arguments: '{"file_pa' } }] }), delta({}, "length")]),
      MODEL,
    );
    expect(cut.stop_reason).toBe("max_tokens");
    expect(cut.content[0]).toMatchObject({ type: "tool_use", input: {}, invalid_input: { raw: '{"file_pa' } });
  });

  it("marks malformed arguments instead of failing, and reads empty arguments as {}", async () => {
    const message = await accumulateChatCompletion(
      payloads([
        delta({ tool_calls: [{ index: 0, id: "bad", function: { name: "Edit", arguments: '{"old_string": "a"b"}' } }] }),
        delta({ tool_calls: [{ index: 1, id: "none", function: { name: "git_status", arguments: "" } }] }),
        delta({}, "tool_calls"),
        "[DONE]",
      ]),
      MODEL,
    );
    expect(message.content[0]).toMatchObject({ id: "bad", input: {}, invalid_input: { raw: '{"old_string": "a"b"}' } });
    expect((message.content[0] as { invalid_input?: { error: string } }).invalid_input?.error).toMatch(/JSON/);
    expect(message.content[1]).toEqual({ type: "tool_use", id: "none", name: "git_status", input: {}, caller: { type: "direct" } });
  });

  it("marks arguments nested deeper than 64 levels, as the Anthropic path does", async () => {
    const deep = `{"command": ${"[".repeat(65)}${"]".repeat(65)}}`;
    const message = await accumulateChatCompletion(
      payloads([delta({ tool_calls: [{ index: 0, id: "deep", function: { name: "Bash", arguments: deep } }] }), delta({}, "tool_calls"), "[DONE]"]),
      MODEL,
    );
    expect(message.content[0]).toMatchObject({ id: "deep", input: {}, invalid_input: { raw: deep } });
    expect((message.content[0] as { invalid_input?: { error: string } }).invalid_input?.error).toMatch(/nests more than 64 levels deep/);
  });

  it("reads whole calls sent without an index or an id (some Ollama versions), and a name repeated in every fragment once", async () => {
    const message = await accumulateChatCompletion(
      payloads([
        delta({ tool_calls: [{ function: { name: "Read", arguments: { file_path: "a.js" } } }] }),
        delta({ tool_calls: [{ id: "second", function: { name: "Write", arguments: '{"file_path":"b.js",' } }] }),
        delta({ tool_calls: [{ function: { name: "Write", arguments: '"content":"x"}' } }] }),
        delta({}, "tool_calls"),
        "[DONE]",
      ]),
      MODEL,
    );
    expect(message.content).toMatchObject([
      { type: "tool_use", name: "Read", input: { file_path: "a.js" } },
      { type: "tool_use", id: "second", name: "Write", input: { file_path: "b.js", content: "x" } },
    ]);
    const generated = (message.content[0] as { id: string }).id;
    expect(generated).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it("without a usage chunk the counts are zero; DeepSeek's prompt_cache_hit_tokens count as cached", async () => {
    const bare = await accumulateChatCompletion(payloads([delta({ content: "hi" }, "stop"), "[DONE]"]), MODEL);
    expect(bare.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 });
    const deepseek = await accumulateChatCompletion(
      payloads([
        delta({ content: "hi" }, "stop"),
        { choices: [], usage: { prompt_tokens: 900, completion_tokens: 3, prompt_cache_hit_tokens: 640 } },
        "[DONE]",
      ]),
      MODEL,
    );
    expect(deepseek.usage).toMatchObject({ input_tokens: 260, output_tokens: 3, cache_read_input_tokens: 640 });
  });

  it("a stream cut before a finish reason or [DONE] is a retryable model_api error", async () => {
    const error = await rejection(accumulateChatCompletion(payloads([delta({ content: "par" })]), MODEL));
    expect(error).toMatchObject({ code: "model_api", retryable: true });
    expect(error.message).toMatch(/ended before a finish_reason/);
    const garbled = await rejection(accumulateChatCompletion(payloads(['{"choices": [{"delta": {"content": "x"']), MODEL));
    expect(garbled).toMatchObject({ code: "model_api", retryable: true });
  });

  it("an error inside the stream rejects, retryable for a 5xx or 429 code and not for a 400", async () => {
    const server = await rejection(
      accumulateChatCompletion(payloads([delta({ content: "a" }), { error: { message: "CUDA out of memory", code: 500 } }]), MODEL),
    );
    expect(server).toMatchObject({ code: "model_api", retryable: true });
    expect(server.message).toContain("CUDA out of memory");
    const limited = await rejection(accumulateChatCompletion(payloads([{ error: { message: "slow down", code: "429" } }]), MODEL));
    expect(limited.retryable).toBe(true);
    const request = await rejection(
      accumulateChatCompletion(payloads([{ error: { message: "context length exceeded", type: "invalid_request_error", code: 400 } }]), MODEL),
    );
    expect(request).toMatchObject({ code: "model_api", retryable: false });
  });
});

describe("readSseData", () => {
  const bytes = async function* (...parts: string[]): AsyncGenerator<Uint8Array> {
    for (const part of parts) yield new TextEncoder().encode(part);
  };
  const collect = async (source: AsyncIterable<Uint8Array>) => {
    const out: string[] = [];
    for await (const data of readSseData(source)) out.push(data);
    return out;
  };

  it("yields each event's data across chunk borders, CRLF or LF, skipping comments and other fields", async () => {
    expect(
      await collect(bytes(": keep-alive\n\n", 'data: {"a"', ":1}\r\n\r\nevent: x\nid: 3\ndata: two\ndata: lines\n\nretry: 5\n\n", "data: [DONE]\n\n")),
    ).toEqual(['{"a":1}', "two\nlines", "[DONE]"]);
  });

  it("keeps a multi-byte character split between chunks, and a last event without its blank line", async () => {
    const euro = new TextEncoder().encode("data: 5 €\n\ndata: end");
    const split = async function* () {
      yield euro.slice(0, 9);
      yield euro.slice(9);
    };
    expect(await collect(split())).toEqual(["5 €", "end"]);
  });
});
