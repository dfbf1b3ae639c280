// The OpenAI-compatible client read whatever a server streamed, without bound. An event that never
// ended (no blank line) was searched for its end from its start again at every read, so 12 MB of it
// kept the event loop busy (every job, webhooks, lock renewals) for about twenty seconds, growing with the
// square of its size; and a server that kept streaming chunks grew the reply in the host's memory
// until the job's deadline, since the silence timer restarts at every chunk. Now an event's end is
// searched for only in what is new, an event has a size limit, and so has a whole response.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageRequest } from "../../src/agent/model-client.js";
import { createOpenAIClient } from "../../src/agent/openai-client.js";
import { isTackleError } from "../../src/errors/tackle-error.js";

const request: MessageRequest = { model: "hostile", max_tokens: 1000, messages: [{ role: "user", content: "hi" }] };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering every request with a 200 event stream whose body `write` produces. */
async function serve(write: (res: import("node:http").ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      write(res);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** Writes `piece` every `ms` until the connection closes. */
function keepWriting(res: import("node:http").ServerResponse, piece: string, ms: number): void {
  const timer = setInterval(() => {
    if (res.destroyed || res.writableEnded) clearInterval(timer);
    else res.write(piece);
  }, ms);
  res.on("close", () => clearInterval(timer));
}

describe("a hostile OpenAI-compatible server", () => {
  it("sending one event that never ends does not hold the event loop, and is refused", async () => {
    const megabyte = "x".repeat(1024 * 1024);
    let sent = 0;
    const url = await serve((res) => {
      res.write("data: ");
      const timer = setInterval(() => {
        if (sent >= 12 || res.destroyed) {
          clearInterval(timer);
          if (!res.destroyed) res.end();
          return;
        }
        sent++;
        res.write(megabyte);
      }, 5);
      res.on("close", () => clearInterval(timer));
    });
    const client = createOpenAIClient({ baseURL: url, maxRetries: 0 });
    const error = await client.create(request, AbortSignal.timeout(120_000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Refused for its size, not retried (the time it took to read is `npm run bench`'s concern, not a test's).
    expect(isTackleError(error, "model_api")).toBe(true);
    expect((error as Error).message).toMatch(/an event longer than \d+ characters/);
    expect(isTackleError(error) && error.retryable).toBe(false);
  }, 150_000);

  it("streaming chunks without end is cut once the response is far past any reply's size", async () => {
    const chunk = `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "y".repeat(64 * 1024) } }] })}\n\n`;
    const url = await serve((res) => keepWriting(res, chunk.repeat(32), 10));
    const client = createOpenAIClient({ baseURL: url, maxRetries: 0 });
    const error = await client.create(request, AbortSignal.timeout(120_000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Not the caller's abort: the client itself gave up on the response, at its size limit.
    expect(isTackleError(error, "model_api")).toBe(true);
    expect((error as Error).message).toMatch(/more than 128 MiB for one response/);
  }, 150_000);
});
