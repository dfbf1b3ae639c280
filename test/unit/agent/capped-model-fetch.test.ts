// The one cap on a model response (cappedModelFetch, MAX_MODEL_RESPONSE_BYTES): at the chokepoint
// itself over real fetch, and through each provider's real client (the Anthropic, Bedrock and Vertex
// SDKs against their loopback fakes, the OpenAI-compatible client against a loopback SSE server),
// where a response past the cap fails the call once, is not retried, and stops the server's sending.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import { createBedrockClient } from "../../../src/agent/bedrock-client.js";
import { cappedModelFetch, MAX_MODEL_RESPONSE_BYTES } from "../../../src/agent/capped-model-fetch.js";
import type { MessageRequest, ModelClient } from "../../../src/agent/model-client.js";
import { createOpenAIClient } from "../../../src/agent/openai-client.js";
import { createVertexClient } from "../../../src/agent/vertex-client.js";
import { isTackleError } from "../../../src/errors/tackle-error.js";
import { startFakeAnthropic } from "../../fakes/fake-anthropic.js";
import { startFakeBedrock } from "../../fakes/fake-bedrock.js";
import { startFakeVertex } from "../../fakes/fake-vertex.js";
import type { ScriptedTurn } from "../../fakes/index.js";

const MiB = 1024 * 1024;
/** Twice the cap: a client without it would read this whole and succeed. */
const FLOOD = 2 * MAX_MODEL_RESPONSE_BYTES;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A loopback server whose every answer `respond` writes; closed after the test. */
async function serve(respond: (res: ServerResponse) => void): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => respond(res));
  });
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `piece` until `bytes` are written or the connection closes, waiting for the socket to drain; returns the count so far. */
function writeUntil(res: ServerResponse, piece: Buffer, bytes: number, onDone: () => void = () => res.end()): () => number {
  let written = 0;
  const next = () => {
    while (written < bytes && !res.destroyed) {
      const chunk = piece.subarray(0, Math.min(piece.length, bytes - written));
      written += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", next);
        return;
      }
    }
    if (!res.destroyed) onDone();
  };
  next();
  return () => written;
}

const mebibyte = Buffer.alloc(MiB, "a");

describe("cappedModelFetch", () => {
  it("passes a body of exactly the cap through whole, with the status, headers and URL", async () => {
    const url = await serve((res) => {
      res.writeHead(429, { "content-type": "text/plain", "retry-after": "7" });
      writeUntil(res, mebibyte, MAX_MODEL_RESPONSE_BYTES);
    });
    const response = await cappedModelFetch("Test API")(`${url}/v1/x`, { method: "POST", body: "{}" });
    expect([response.status, response.headers.get("retry-after"), response.url]).toEqual([429, "7", `${url}/v1/x`]);
    expect((await response.arrayBuffer()).byteLength).toBe(MAX_MODEL_RESPONSE_BYTES);
  }, 120_000);

  it("errors a body one byte past the cap, not retryable, naming who sent it", async () => {
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      writeUntil(res, mebibyte, MAX_MODEL_RESPONSE_BYTES + 1);
    });
    const response = await cappedModelFetch("Test API")(url);
    const error = await response.arrayBuffer().then(
      () => new Error("read whole"),
      (rejected: unknown) => rejected,
    );
    expect(isTackleError(error, "model_api"), String(error)).toBe(true);
    expect(isTackleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toBe(
      "Test API: the server sent more than 128 MiB for one response, the cap on every model response; cut there, not retried",
    );
  }, 120_000);

  it("stops reading a body that keeps coming: the connection is closed, the rest never sent", async () => {
    let written = () => 0;
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", closed);
      written = writeUntil(res, mebibyte, FLOOD);
    });
    const response = await cappedModelFetch("Test API")(url);
    // Read and let go, as a stream parser does: only the cap can end this before the server is done.
    const read = async () => {
      for await (const _chunk of response.body ?? []) {
        // Nothing kept.
      }
    };
    await expect(read()).rejects.toThrow(/more than 128 MiB/);
    await gone;
    expect(written()).toBeLessThan(FLOOD);
  }, 120_000);

  it("returns a response without a body as it came", async () => {
    const url = await serve((res) => res.writeHead(204).end());
    const response = await cappedModelFetch("Test API")(url);
    expect([response.status, response.body]).toEqual([204, null]);
  });
});

const request: MessageRequest = { model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "hi" }] };
/** A reply that opens a text block and then floods it. */
const flooding: ScriptedTurn = { content: [{ type: "text", text: "done" }], floodBytes: FLOOD };

interface Provider {
  client: ModelClient;
  /** Requests the provider's endpoint got. */
  requests(): number;
  /** Bytes the server wrote of the flood before the connection closed. */
  written(): number;
}

const providers: Array<[string, () => Promise<Provider>]> = [
  [
    "anthropic",
    async () => {
      const fake = await startFakeAnthropic([flooding, flooding, flooding]);
      cleanups.push(() => fake.close());
      const client = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 2 });
      return { client, requests: () => fake.requests.length, written: () => fake.requests[0]?.flooded ?? 0 };
    },
  ],
  [
    "bedrock",
    async () => {
      const fake = await startFakeBedrock([flooding, flooding, flooding], { apiKey: "bedrock-api-key-test" });
      cleanups.push(() => fake.close());
      const client = createBedrockClient({ region: fake.region, baseURL: fake.url, apiKey: "bedrock-api-key-test", maxRetries: 2 });
      return { client, requests: () => fake.requests.length, written: () => fake.model.requests[0]?.flooded ?? 0 };
    },
  ],
  [
    "vertex",
    async () => {
      const fake = await startFakeVertex([flooding, flooding, flooding]);
      const dir = await mkdtemp(path.join(os.tmpdir(), "tackle-vertex-cap-"));
      cleanups.push(async () => {
        await fake.close();
        await rm(dir, { recursive: true, force: true });
      });
      const keyFile = await fake.writeCredentials(dir);
      const client = createVertexClient({ region: fake.region, projectId: fake.project, baseURL: fake.url, keyFile, maxRetries: 2 });
      return { client, requests: () => fake.requests.length, written: () => fake.model.requests[0]?.flooded ?? 0 };
    },
  ],
  [
    "openai",
    async () => {
      let requests = 0;
      let written = () => 0;
      const chunk = `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "y".repeat(MiB) } }] })}\n\n`;
      const url = await serve((res) => {
        requests++;
        res.writeHead(200, { "content-type": "text/event-stream" });
        written = writeUntil(res, Buffer.from(chunk), FLOOD);
      });
      const client = createOpenAIClient({ baseURL: `${url}/v1`, maxRetries: 2 });
      return { client, requests: () => requests, written: () => written() };
    },
  ],
];

describe.each(providers)("the %s client, answered past the cap", (_name, start) => {
  it("fails the call once, not retried, before the server sent it all", async () => {
    const provider = await start();
    const error = await provider.client.create(request, new AbortController().signal).then(
      (message) => new Error(`resolved with ${message.content.length} blocks`),
      (rejected: unknown) => rejected,
    );
    expect(isTackleError(error, "model_api"), String(error)).toBe(true);
    expect(isTackleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toMatch(/the server sent more than 128 MiB for one response/);
    expect(provider.requests()).toBe(1);
    // Bedrock's frames carry the text in base64: the cap is reached with three quarters of it sent.
    expect(provider.written()).toBeGreaterThan(MAX_MODEL_RESPONSE_BYTES / 2);
    expect(provider.written()).toBeLessThan(FLOOD);
  }, 120_000);
});
