// An Anthropic-protocol stream has no byte cap: the Messages API client (also Bedrock's and Vertex's,
// through createStreamingClient and accumulateMessage) appends every text_delta to the message in the
// host's memory for as long as the server sends, and the SDK's own timeout stops at the response
// headers. The OpenAI-compatible client cuts a response at 128 MiB (MAX_RESPONSE_BYTES in
// openai-client.ts) for exactly this reason; the other three providers have no such limit, and the HTTP
// client with limits (src/net) is not used for model calls at all. A server on loopback behind
// ANTHROPIC_BASE_URL (a proxy speaking the Messages API) that streams text without end grows the
// `tackle server` process until the job's deadline or the OOM killer, whichever comes first, taking
// every job of the process with it. Measured: all 512 MiB of text_delta events were read and appended
// until V8's own string limit ended the call ("Anthropic API stream cut: Invalid string length", which
// is retryable, so the default client sends the request 4 more times); nothing but that limit per block
// bounds it, and a stream with several content blocks holds that much for each. The model provider is
// trusted in the security model, so this is PARTIAL: the limit exists on one provider of four.
// Now every model client sends through one fetch, cappedModelFetch (src/agent/capped-model-fetch.ts),
// which counts each response's bytes as they stream in and cuts it past MAX_MODEL_RESPONSE_BYTES
// (128 MiB, the OpenAI-compatible client's limit, now shared) with an error that is not retried
// (test/unit/agent/capped-model-fetch.test.ts: each of the four providers, with retries on).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/anthropic-client.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const MiB = 1024 * 1024;
/** Far past any one reply, and the OpenAI client's own cap (128 MiB) twice over. */
const CUT_EXPECTED_BELOW = 256 * MiB;
const ATTEMPT = 512 * MiB;

describe("an Anthropic-protocol stream that keeps sending text", () => {
  it("is cut off, as the OpenAI-compatible client's is, rather than held whole", async () => {
    let written = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", async () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
        res.write(
          event("message_start", {
            type: "message_start",
            message: {
              id: "msg_1",
              type: "message",
              role: "assistant",
              model: "claude-sonnet-4-5",
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 10, output_tokens: 1 },
            },
          }),
        );
        res.write(event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
        const delta = Buffer.from(
          event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "a".repeat(MiB) } }),
        );
        while (written < ATTEMPT && !res.destroyed) {
          written += MiB;
          if (!res.write(delta)) await new Promise<void>((drained) => res.once("drain", drained).once("close", drained));
        }
        if (res.destroyed) return;
        res.write(event("content_block_stop", { type: "content_block_stop", index: 0 }));
        res.write(event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }));
        res.end(event("message_stop", { type: "message_stop" }));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = createAnthropicClient({
      apiKey: "sk-ant-test",
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      maxRetries: 0,
    });
    const outcome = await client
      .create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }, new AbortController().signal)
      .then(
        (message) =>
          `resolved with ${message.content.map((block) => (block.type === "text" ? block.text.length : 0)).reduce((a, b) => a + b, 0)} characters of text`,
        (error: unknown) => `rejected: ${String(error).slice(0, 200)}`,
      );
    console.log(`server wrote ${written / MiB} MiB; the call ${outcome}`);
    expect(written).toBeLessThan(CUT_EXPECTED_BELOW);
  }, 120_000);
});
