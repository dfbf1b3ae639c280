import { failure } from "./helpers.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import type { MessageRequest } from "../../../src/agent/model-client.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A tiny local stand-in for the Messages endpoint: one handler per request, in order. */
async function fakeApi(handlers: Handler[]): Promise<{ url: string; bodies: unknown[]; close: () => Promise<void> }> {
  const bodies: unknown[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    req.on("end", () => {
      bodies.push(JSON.parse(raw));
      const handler = handlers[Math.min(next++, handlers.length - 1)];
      handler?.(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sse(events: Array<[string, unknown]>, options: { end?: boolean } = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (options.end !== false) res.end();
  };
}

function errorStatus(status: number, type: string): Handler {
  return (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", "retry-after-ms": "5" });
    res.end(JSON.stringify({ type: "error", error: { type, message: `fake ${type}` } }));
  };
}

const messageStart: [string, unknown] = [
  "message_start",
  {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-6",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
    },
  },
];

const toolUseReply = sse([
  messageStart,
  ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
  ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Reading " } }],
  ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "the file." } }],
  ["content_block_stop", { type: "content_block_stop", index: 0 }],
  ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "Read", input: {} } }],
  ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"file_' } }],
  ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: 'path": "src/a.ts", "limit": 20}' } }],
  ["content_block_stop", { type: "content_block_stop", index: 1 }],
  ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } }],
  ["message_stop", { type: "message_stop" }],
]);

const request: MessageRequest = {
  model: "claude-sonnet-4-6",
  max_tokens: 1024,
  system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: "read a.ts" }],
};

let api: Awaited<ReturnType<typeof fakeApi>> | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("createAnthropicClient", () => {
  const signal = new AbortController().signal;

  it("streams a tool_use reply and returns the assembled message", async () => {
    api = await fakeApi([toolUseReply]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const message = await client.create(request, signal);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toMatchObject([
      { type: "text", text: "Reading the file." },
      { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "src/a.ts", limit: 20 } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 30, cache_read_input_tokens: 100 });
    expect(api.bodies[0]).toMatchObject({ stream: true, model: "claude-sonnet-4-6", system: request.system });
  });

  it("retries a 529 and then succeeds", async () => {
    api = await fakeApi([errorStatus(529, "overloaded_error"), toolUseReply]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const message = await client.create(request, signal);
    expect(message.content).toHaveLength(2);
    expect(api.bodies).toHaveLength(2);
  });

  it("maps 429/529/5xx left after the retries to a retryable model_api error", async () => {
    api = await fakeApi([errorStatus(529, "overloaded_error")]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url, maxRetries: 1 });
    const error = await failure(client.create(request, signal));
    expect(error).toMatchObject({ code: "model_api", retryable: true });
    expect(error.message).toContain("529");
    expect(api.bodies).toHaveLength(2);
  });

  it.each([
    [400, "invalid_request_error"],
    [401, "authentication_error"],
    [403, "permission_error"],
  ])("maps HTTP %d to a non-retryable model_api error without retrying", async (status, type) => {
    api = await fakeApi([errorStatus(status, type)]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const error = await failure(client.create(request, signal));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(api.bodies).toHaveLength(1);
  });

  it("retries an overloaded error sent in the middle of a stream", async () => {
    const midStreamError = sse([messageStart, ["error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]]);
    api = await fakeApi([midStreamError, toolUseReply]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const message = await client.create(request, signal);
    expect(message.stop_reason).toBe("tool_use");
    expect(api.bodies).toHaveLength(2);
  });

  it("returns a tool call with malformed JSON input marked for the loop, without retrying", async () => {
    const broken = '{"file_path": "a.ts", "old_string": "say "hi"", "new_string": "x"}';
    const brokenReply = sse([
      messageStart,
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "Edit", input: {} } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: broken.slice(0, 30) } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: broken.slice(30) } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } }],
      ["message_stop", { type: "message_stop" }],
    ]);
    api = await fakeApi([brokenReply, toolUseReply]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const message = await client.create(request, signal);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toMatchObject([{ type: "tool_use", id: "toolu_1", name: "Edit", input: {}, invalid_input: { raw: broken } }]);
    expect(api.bodies).toHaveLength(1);
  });

  it("retries a stream cut mid-way (connection reset before message_stop), then succeeds", async () => {
    const cut: Handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: message_start\ndata: ${JSON.stringify(messageStart[1])}\n\n`);
      res.write(
        `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`,
      );
      setTimeout(() => res.socket?.destroy(), 20);
    };
    api = await fakeApi([cut, toolUseReply]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const message = await client.create(request, signal);
    expect(message.content).toHaveLength(2);
    expect(api.bodies).toHaveLength(2);
  });

  it("maps a stream cut on every attempt to a retryable model_api error", async () => {
    const endsEarly = sse([messageStart, ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }]]);
    api = await fakeApi([endsEarly]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url, maxRetries: 1 });
    const error = await failure(client.create(request, signal));
    expect(error).toMatchObject({ code: "model_api", retryable: true });
    expect(api.bodies).toHaveLength(2);
  });

  it("maps a connection failure to a retryable error", async () => {
    api = await fakeApi([toolUseReply]);
    const url = api.url;
    await api.close();
    api = undefined;
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: url, maxRetries: 0 });
    expect(await failure(client.create(request, signal))).toMatchObject({ code: "model_api", retryable: true });
  });

  it("maps an abort to TackleError aborted", async () => {
    api = await fakeApi([sse([messageStart], { end: false })]);
    const client = createAnthropicClient({ apiKey: "test-key", baseURL: api.url });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await failure(client.create(request, controller.signal))).toMatchObject({ code: "aborted" });
  });
});
