// The usage numbers of an Anthropic-protocol stream (the Anthropic API or whatever ANTHROPIC_BASE_URL
// names, and Bedrock and Vertex, which share accumulateMessage) are taken as sent. The same fault was
// fixed for OpenAI-compatible servers (absurd-usage-lifts-daily-cap.test.ts: `tokenCount` in
// accumulate-chat-completion.ts), but not at one chokepoint: accumulateMessage copies `message_start`'s
// usage and `message_delta`'s `output_tokens` unchecked. A server on loopback (a LiteLLM-style proxy
// speaking the Messages API) that reports `output_tokens: -5000000` makes the response's cost
// negative (measured: the job's meter went from $3.00 to -$72.00), so the job's max_cost_usd check
// never trips and the daily ledger settles the job at $0 (toMicros clamps) whatever it spent before;
// `"lots"` makes the cost NaN (the ledger then settles everything held) and 1e309 makes it Infinity
// (the metrics counter refuses it, and the error is swallowed). The provider is trusted in the
// security model, so this is a weakness of the rule "a server's numbers are made countable in one
// place" (it holds on one of four providers), not an outside break.
// Now both paths check every count with one function, tokenCount (src/agent/token-count.ts): a value
// that is not a non-negative safe integer fails the call with a model_api error naming the field,
// not retryable, so nothing uncountable reaches the meter and the request is not sent again. (The
// red team's first version expected the call to succeed with the counts made countable; a made-up
// count would hide that the response's cost is unknown, so the call fails instead.)
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/anthropic-client.js";
import { isTackleError } from "../../src/errors/tackle-error.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A Messages API server on 127.0.0.1 whose streamed answer reports `usage` (raw JSON text) in its message_delta. */
async function hostileServer(usage: string): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const event = (name: string, data: string) => res.write(`event: ${name}\ndata: ${data}\n\n`);
      event(
        "message_start",
        JSON.stringify({
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
          },
        }),
      );
      event("content_block_start", JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
      event("content_block_delta", JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }));
      event("content_block_stop", JSON.stringify({ type: "content_block_stop", index: 0 }));
      // Raw text: JSON.stringify could not write 1e309.
      event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":${usage}}`);
      event("message_stop", JSON.stringify({ type: "message_stop" }));
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe("an Anthropic-protocol server's absurd usage numbers", () => {
  it.each([
    ['{"output_tokens":-5000000}', "usage.output_tokens"],
    ['{"output_tokens":1e309}', "usage.output_tokens"],
    ['{"output_tokens":"lots"}', "usage.output_tokens"],
    ['{"output_tokens":10,"input_tokens":-9000000}', "usage.input_tokens"],
    ['{"output_tokens":10,"cache_read_input_tokens":-9000000}', "usage.cache_read_input_tokens"],
  ])("never reach the job's meter: the call fails, naming the field, and is not sent again: %s", async (usage, field) => {
    const server = await hostileServer(usage);
    const client = createAnthropicClient({ apiKey: "sk-ant-test", baseURL: server.url, maxRetries: 2 });
    const error = await client
      .create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }, new AbortController().signal)
      .then(
        (message) => new Error(`resolved with usage ${JSON.stringify(message.usage)}`),
        (rejected: unknown) => rejected,
      );
    expect(isTackleError(error, "model_api"), String(error)).toBe(true);
    expect(isTackleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toContain(`${field} of message_delta`);
    expect(server.requests()).toBe(1);
  });
});
