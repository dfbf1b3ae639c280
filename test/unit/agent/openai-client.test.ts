// The OpenAI-compatible client against the loopback fake (real fetch, real SSE): the mapping both
// ways, prompt-cache accounting, and how each failure is retried or reported.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { createOpenAIClient, type OpenAIClientOptions } from "../../../src/agent/openai-client.js";
import { isTackleError, type TackleError } from "../../../src/errors/tackle-error.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../fakes/index.js";
import type { ScriptedModel } from "../../fakes/fake-anthropic.js";

const READ = {
  name: "Read",
  description: "Reads a file. ".repeat(50),
  input_schema: { type: "object" as const, properties: { file_path: { type: "string" } } },
};

const request = (messages: MessageRequest["messages"]): MessageRequest => ({
  model: "fake-coder",
  max_tokens: 1000,
  system: [{ type: "text", text: "You are Tackle.", cache_control: { type: "ephemeral" } }],
  tools: [READ],
  messages,
});

let fake: FakeOpenAI | undefined;
let other: Server | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  other?.closeAllConnections();
  await new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve()));
  other = undefined;
});

/** A fresh fake (closing the test's previous one) and a client of it. */
async function start(script: ScriptedModel, options: Partial<OpenAIClientOptions> = {}) {
  await fake?.close();
  fake = await startFakeOpenAI(script, { minCacheableTokens: 0 });
  return createOpenAIClient({ baseURL: fake.url, apiKey: fake.apiKey ?? "", maxRetries: 2, ...options });
}

async function rejection(promise: Promise<unknown>): Promise<TackleError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isTackleError(error)) throw new Error(`expected a TackleError, got ${String(error)}`);
  return error;
}

const signal = () => new AbortController().signal;

describe("createOpenAIClient", () => {
  it("streams a reply with text and two tool calls back as Anthropic blocks, with the key as a bearer token", async () => {
    const client = await start([
      {
        content: [
          { type: "text", text: "Reading both files now." },
          { type: "tool_use", name: "Read", input: { file_path: "src/a.js" } },
          { type: "tool_use", name: "Read", input: { file_path: "src/b.js" } },
        ],
      },
    ]);
    const message = await client.create(request([{ role: "user", content: "Fix it." }]), signal());
    expect(client.name).toBe("openai");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toMatchObject([
      { type: "text", text: "Reading both files now." },
      { type: "tool_use", name: "Read", input: { file_path: "src/a.js" } },
      { type: "tool_use", name: "Read", input: { file_path: "src/b.js" } },
    ]);
    const [first] = fake!.requests;
    expect(first?.headers.authorization).toBe(`Bearer ${fake!.apiKey}`);
    expect(first?.path).toBe("/v1/chat/completions");
    expect(first?.body).toMatchObject({
      model: "fake-coder",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are Tackle." },
        { role: "user", content: "Fix it." },
      ],
      tools: [{ type: "function", function: { name: "Read" } }],
    });
    expect(message.usage).toMatchObject({
      input_tokens: first?.usage?.prompt_tokens,
      output_tokens: first?.usage?.completion_tokens,
      cache_read_input_tokens: 0,
    });
  });

  it("answers the calls in the next request as the API demands, and the repeated prefix comes back as cached tokens", async () => {
    const client = await start([
      { content: [{ type: "tool_use", name: "Read", input: { file_path: "a.js" }, id: "call_1" }] },
      { content: [{ type: "text", text: "Done." }] },
    ]);
    const first = await client.create(request([{ role: "user", content: "Fix it." }]), signal());
    const second = await client.create(
      request([
        { role: "user", content: "Fix it." },
        {
          role: "assistant",
          content: first.content.map((block) =>
            block.type === "tool_use" ? { type: "tool_use", id: block.id, name: block.name, input: block.input } : block,
          ) as never,
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "const a = 1;" }] },
      ]),
      signal(),
    );
    expect(fake!.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(second.stop_reason).toBe("end_turn");
    const cached = fake!.requests[1]!.usage!.cached_tokens;
    expect(cached).toBeGreaterThan(0);
    expect(second.usage.cache_read_input_tokens).toBe(cached);
    expect(second.usage.input_tokens).toBe(fake!.requests[1]!.usage!.prompt_tokens - cached);
  });

  it("retries a 429 after the server's retry-after-ms, then succeeds", async () => {
    const client = await start([{ error: { status: 429, message: "Rate limit reached" }, retryAfterMs: 10 }, { content: [{ type: "text", text: "ok" }] }]);
    const message = await client.create(request([{ role: "user", content: "hi" }]), signal());
    expect(message.content).toMatchObject([{ type: "text", text: "ok" }]);
    expect(fake!.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("a 400 is not retried, and says what the server said", async () => {
    const client = await start([{ error: { status: 400, message: "This model's maximum context length is 32768 tokens" } }, { content: [] }]);
    const error = await rejection(client.create(request([{ role: "user", content: "hi" }]), signal()));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toBe("OpenAI-compatible API HTTP 400: This model's maximum context length is 32768 tokens");
    expect(fake!.requests).toHaveLength(1);
  });

  it("a wrong key is a 401, not retried", async () => {
    fake = await startFakeOpenAI([]);
    const client = createOpenAIClient({ baseURL: fake.url, apiKey: "sk-wrong", maxRetries: 3 });
    const error = await rejection(client.create(request([{ role: "user", content: "hi" }]), signal()));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toContain("HTTP 401");
    expect(fake.requests).toHaveLength(1);
  });

  it("honours x-should-retry: false on a 500", async () => {
    const client = await start([]);
    const error = await rejection(client.create(request([{ role: "user", content: "hi" }]), signal()));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toContain("scripted model exhausted");
    expect(fake!.requests).toHaveLength(1);
  });

  it("retries a stream that failed part-way or was cut, then gives up with a retryable error", async () => {
    const client = await start(
      [
        { error: { status: 500, message: "engine died" }, midStream: true },
        { content: [{ type: "text", text: "a long answer" }], cutAfterEvents: 2 },
        { content: [{ type: "text", text: "whole" }] },
      ],
      { maxRetries: 2 },
    );
    const message = await client.create(request([{ role: "user", content: "hi" }]), signal());
    expect(message.content).toMatchObject([{ type: "text", text: "whole" }]);
    expect(fake!.requests).toHaveLength(3);

    const stubborn = await start([{ content: [{ type: "text", text: "cut" }], cutAfterEvents: 1 }], { maxRetries: 0 });
    const error = await rejection(stubborn.create(request([{ role: "user", content: "hi" }]), signal()));
    expect(error).toMatchObject({ code: "model_api", retryable: true });
  });

  it("a base URL's user and password go as Basic authorization, not in the URL", async () => {
    let seen: { url?: string | undefined; authorization?: string | undefined } = {};
    other = createServer((req, res) => {
      seen = { url: req.url, authorization: req.headers.authorization };
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
    });
    await new Promise<void>((resolve) => other!.listen(0, "127.0.0.1", resolve));
    const client = createOpenAIClient({ baseURL: `http://proxy%20user:p%40ss@127.0.0.1:${(other.address() as AddressInfo).port}/v1/` });
    const message = await client.create(request([{ role: "user", content: "hi" }]), signal());
    expect(message.content).toMatchObject([{ type: "text", text: "hi" }]);
    expect(seen).toEqual({ url: "/v1/chat/completions", authorization: `Basic ${Buffer.from("proxy user:p@ss").toString("base64")}` });
  });

  it("a server that cannot be reached is retryable, and the message names it without the URL's password", async () => {
    other = createServer();
    await new Promise<void>((resolve) => other!.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as AddressInfo).port;
    await new Promise<void>((resolve) => other!.close(() => resolve()));
    other = undefined;
    const client = createOpenAIClient({ baseURL: `http://user:hunter2@127.0.0.1:${port}/v1`, maxRetries: 0 });
    const error = await rejection(client.create(request([{ role: "user", content: "hi" }]), signal()));
    expect(error).toMatchObject({ code: "model_api", retryable: true });
    expect(error.message).toContain(`could not reach the OpenAI-compatible server at http://user:[REDACTED]@127.0.0.1:${port}/v1`);
    expect(error.message).not.toContain("hunter2");
  });

  it("a server that goes silent is cut after the idle timeout, as a retryable error", async () => {
    other = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "thinking" } }] })}\n\n`);
    });
    await new Promise<void>((resolve) => other!.listen(0, "127.0.0.1", resolve));
    const client = createOpenAIClient({ baseURL: `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`, maxRetries: 0, idleTimeoutMs: 200 });
    const error = await rejection(client.create(request([{ role: "user", content: "hi" }]), signal()));
    expect(error).toMatchObject({ code: "model_api", retryable: true });
    expect(error.message).toMatch(/sent nothing for/);
  });

  it("an abort ends the call as aborted, also while waiting to retry", async () => {
    const client = await start([{ content: [{ type: "text", text: "slow" }], delayMs: 5000 }]);
    const controller = new AbortController();
    const pending = client.create(request([{ role: "user", content: "hi" }]), controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await rejection(pending)).toMatchObject({ code: "aborted" });

    const waiting = await start([{ error: { status: 503, message: "busy" }, retryAfterMs: 30_000 }], { maxRetries: 3 });
    const later = new AbortController();
    const retrying = waiting.create(request([{ role: "user", content: "hi" }]), later.signal);
    setTimeout(() => later.abort(), 100);
    expect(await rejection(retrying)).toMatchObject({ code: "aborted" });
    expect(fake!.requests).toHaveLength(1);
  });
});
