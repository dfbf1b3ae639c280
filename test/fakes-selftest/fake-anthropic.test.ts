import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { computeUsage, createCacheState, startFakeAnthropic, type FakeAnthropic, type ScriptedModel } from "../fakes/index.js";

const MODEL = "claude-sonnet-4-6";
const TOOLS = [
  {
    name: "Read",
    description: "Read a file. ".repeat(400),
    input_schema: { type: "object" as const, properties: { file_path: { type: "string" } }, required: ["file_path"] },
  },
];

describe("fake Anthropic Messages API, driven by the real SDK", () => {
  let fake: FakeAnthropic | undefined;
  const start = async (script: ScriptedModel, options: Parameters<typeof startFakeAnthropic>[1] = {}) => {
    fake = await startFakeAnthropic(script, options);
    return { fake, client: new Anthropic({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 2 }) };
  };
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it("answers messages.create with a scripted text turn", async () => {
    const { fake, client } = await start([{ content: [{ type: "text", text: "Hello there" }] }]);
    const message = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "Hi" }] });
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: MODEL,
      stop_reason: "end_turn",
      content: [{ type: "text", text: "Hello there" }],
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(fake.requests[0]?.body.messages).toEqual([{ role: "user", content: "Hi" }]);
    // SDK 1.14 sends an apiKey as a bearer token; older SDKs and curl use x-api-key. Both are accepted.
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    const raw = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": fake.apiKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] }),
    });
    expect(raw.status).toBe(500);
    expect(await raw.json()).toMatchObject({ type: "error", error: { type: "api_error", message: "scripted model exhausted" } });
  });

  it("streams a tool_use turn that messages.stream(...).finalMessage() reassembles", async () => {
    const { client } = await start([
      {
        content: [
          { type: "text", text: "Let me read the file first." },
          { type: "tool_use", name: "Read", input: { file_path: "src/index.ts", limit: 20 } },
        ],
      },
    ]);
    const texts: string[] = [];
    const stream = client.messages.stream({ model: MODEL, max_tokens: 100, tools: TOOLS, messages: [{ role: "user", content: "Fix it" }] });
    stream.on("text", (delta) => texts.push(delta));
    const message = await stream.finalMessage();
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join("")).toBe("Let me read the file first.");
    expect(message.stop_reason).toBe("tool_use");
    const tool = message.content[1];
    expect(tool).toMatchObject({ type: "tool_use", name: "Read", input: { file_path: "src/index.ts", limit: 20 } });
    expect(tool?.type === "tool_use" && tool.id).toMatch(/^toolu_/);
    expect(message.usage.output_tokens).toBeGreaterThan(1);
  });

  it("streams a tool call cut off by max_tokens as the API does", async () => {
    const { client } = await start([
      { content: [{ type: "tool_use", name: "Write", partialJson: '{"file_path": "a.ts", "content": "export const' }], stop_reason: "max_tokens" },
    ]);
    const message = await client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Write" }] }).finalMessage();
    expect(message.stop_reason).toBe("max_tokens");
    // The SDK keeps what its partial-JSON parser recovers; the unfinished string is dropped.
    expect(message.content[0]).toMatchObject({ type: "tool_use", name: "Write", input: { file_path: "a.ts" } });
  });

  it("streams a tool call's malformed input JSON verbatim, ending the message normally", async () => {
    const raw = '{"file_path": "a.ts", "content": "say "hi""}';
    const { client } = await start([{ content: [{ type: "tool_use", name: "Write", rawInputJson: raw }] }]);
    const stream = await client.messages.create({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: "user", content: "Write" }] });
    const events: Array<{ type: string }> = [];
    let json = "";
    for await (const event of stream) {
      events.push(event);
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") json += event.delta.partial_json;
      if (event.type === "message_delta") expect(event.delta.stop_reason).toBe("tool_use");
    }
    expect(json).toBe(raw);
    expect(events.at(-1)?.type).toBe("message_stop");
    // The SDK's own accumulator fails the whole message on it, which is why Tackle accumulates the events itself.
    const helper = client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "Write" }] });
    fake!.requests.length = 0;
    await expect(helper.finalMessage()).rejects.toThrow();
  });

  it("resets the connection mid-stream when a turn says cutAfterEvents", async () => {
    const { client } = await start([{ content: [{ type: "text", text: "Hello there" }], cutAfterEvents: 3 }]);
    const stream = await client.messages.create({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: "user", content: "Hi" }] });
    const types: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream) types.push(event.type);
      })(),
    ).rejects.toThrow();
    expect(types).toEqual(["message_start", "content_block_start"]);
  });

  it("sends an SSE error event mid-stream, which the SDK raises", async () => {
    const { client } = await start([{ error: { status: 529 }, midStream: true }]);
    const stream = client.messages.stream({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] });
    await expect(stream.finalMessage()).rejects.toThrow(/overloaded_error/);
  });

  it("retries a 529 overloaded error and then succeeds", async () => {
    const { fake, client } = await start([{ error: { status: 529 }, retryAfterMs: 10 }, { content: [{ type: "text", text: "Recovered" }] }]);
    const message = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "Hi" }] });
    expect(message.content[0]).toMatchObject({ text: "Recovered" });
    expect(fake.requests.map((r) => r.status)).toEqual([529, 200]);
    expect(fake.errors[0]).toMatchObject({ status: 529, type: "overloaded_error", message: "Overloaded" });
  });

  it("surfaces a non-retryable error with Anthropic's error shape", async () => {
    const { client } = await start([{ error: { status: 400, message: "prompt is too long" } }]);
    const error = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "Hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long" },
    });
  });

  it("rejects a wrong API key with authentication_error, and accepts a bearer token", async () => {
    const { fake } = await start([{ content: [{ type: "text", text: "ok" }] }]);
    const wrong = new Anthropic({ apiKey: "sk-ant-wrong", baseURL: fake.url, maxRetries: 0 });
    await expect(wrong.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    const bearer = new Anthropic({ authToken: fake.apiKey, apiKey: null, baseURL: fake.url, maxRetries: 0 });
    await expect(bearer.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })).resolves.toMatchObject({
      type: "message",
    });
  });

  it("reports 'scripted model exhausted' past the end of the script, without SDK retries", async () => {
    const { fake, client } = await start([]);
    await expect(client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] })).rejects.toMatchObject({ status: 500 });
    expect(fake.exhausted()).toBe(1);
    expect(fake.errors).toEqual([{ status: 500, type: "api_error", message: "scripted model exhausted", turn: 0 }]);
  });

  it("accounts a second identical-prefix request as a cache read", async () => {
    const reply = { content: [{ type: "text" as const, text: "ok" }] };
    const { client } = await start([reply, reply, reply]);
    const system = [{ type: "text" as const, text: "You are Tackle. ".repeat(300), cache_control: { type: "ephemeral" as const } }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 10, tools: TOOLS, system, messages: [{ role: "user", content: "Turn one" }] });
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(first.usage.cache_read_input_tokens).toBe(0);

    const second = await client.messages
      .stream({ model: MODEL, max_tokens: 10, tools: TOOLS, system, messages: [{ role: "user", content: "Turn two, different" }] })
      .finalMessage();
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens).toBeGreaterThan(0);

    const otherModel = await client.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 10,
      tools: TOOLS,
      system,
      messages: [{ role: "user", content: "x" }],
    });
    expect(otherModel.usage.cache_read_input_tokens).toBe(0);
  });

  it("implements breakpoints, lookback and TTL in computeUsage", () => {
    let now = 0;
    const cache = createCacheState(() => now);
    const rules = { minCacheableTokens: 0 };
    const block = (text: string, cached = false) => ({ type: "text", text, ...(cached ? { cache_control: { type: "ephemeral" } } : {}) });
    const turn = (n: number) => ({
      model: MODEL,
      system: [block("system prompt ".repeat(50), true)],
      messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: [block(`message ${i} `.repeat(20), i === n - 1)] })),
    });
    const one = computeUsage(turn(1), cache, rules);
    expect(one.cache_read_input_tokens).toBe(0);
    expect(one.input_tokens).toBe(0);
    const three = computeUsage(turn(3), cache, rules);
    // The conversation so far (system + message 0) is read; the new turns are written.
    expect(three.cache_read_input_tokens).toBe(one.cache_creation_input_tokens);
    expect(three.cache_creation_input_tokens).toBeGreaterThan(0);
    now += 6 * 60_000;
    const stale = computeUsage(turn(3), cache, rules);
    expect(stale.cache_read_input_tokens).toBe(0);
    const noMarks = computeUsage({ model: MODEL, messages: [{ role: "user", content: "plain" }] }, cache, rules);
    expect(noMarks).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(noMarks.input_tokens).toBeGreaterThan(0);
  });

  it("passes each request and its index to a scripted function", async () => {
    const { fake, client } = await start((request, index) => ({
      content: [{ type: "text", text: `turn ${index} saw ${(request.messages ?? []).length} messages` }],
    }));
    const message = await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "Hi" }] });
    expect(message.content[0]).toMatchObject({ text: "turn 0 saw 1 messages" });
    expect(fake.turnsUsed()).toBe(1);
  });
});
