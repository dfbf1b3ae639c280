import { failure } from "./helpers.js";
// The Bedrock model client through @anthropic-ai/bedrock-sdk against the fake Bedrock runtime: SigV4
// on every request, AWS event-stream frames back, and Bedrock's errors mapped like the Messages API's.
import { afterEach, describe, expect, it } from "vitest";
import { createBedrockClient } from "../../../src/agent/bedrock-client.js";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { startFakeBedrock, type FakeBedrock } from "../../fakes/fake-bedrock.js";
import type { ScriptedTurn } from "../../fakes/index.js";
import { verifySigV4 } from "../../fakes/verify-sigv4.js";

const MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0";

const request: MessageRequest = {
  model: MODEL,
  max_tokens: 1024,
  system: [{ type: "text", text: "You fix bugs.", cache_control: { type: "ephemeral" } }],
  tools: [{ name: "Read", description: "Reads a file", input_schema: { type: "object", properties: { file_path: { type: "string" } } } }],
  messages: [{ role: "user", content: "Read a.ts" }],
};

const readTurn: ScriptedTurn = {
  content: [
    { type: "text", text: "Reading the file first." },
    { type: "tool_use", name: "Read", input: { file_path: "src/a.ts", limit: 20 } },
  ],
};

let fake: FakeBedrock | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function clientFor(bedrock: FakeBedrock, overrides: { secretAccessKey?: string; maxRetries?: number } = {}) {
  const { accessKeyId, secretAccessKey, sessionToken } = bedrock.credentials;
  return createBedrockClient({
    region: bedrock.region,
    baseURL: bedrock.url,
    credentials: { accessKeyId, secretAccessKey: overrides.secretAccessKey ?? secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    maxRetries: overrides.maxRetries ?? 2,
  });
}

describe("createBedrockClient", () => {
  it("streams a tool call through signed invoke-with-response-stream requests and event-stream frames", async () => {
    fake = await startFakeBedrock([readTurn]);
    const message = await clientFor(fake).create(request, new AbortController().signal);

    expect(message.content).toEqual([
      expect.objectContaining({ type: "text", text: "Reading the file first." }),
      expect.objectContaining({ type: "tool_use", name: "Read", input: { file_path: "src/a.ts", limit: 20 } }),
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.input_tokens).toBeGreaterThan(0);

    const [sent] = fake.requests;
    expect(sent).toMatchObject({ method: "POST", modelId: MODEL, stream: true, status: 200, signature: { ok: true } });
    // The id's ":" travels as is, and the signature covers the path with each segment encoded (":" as %3A).
    expect(sent!.rawUrl).toBe("/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream");
    expect(sent!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIATACKLEFAKE000001\/\d{8}\/us-east-1\/bedrock\/aws4_request, ?SignedHeaders=[^,]*x-amz-security-token[^,]*, ?Signature=[0-9a-f]{64}$/,
    );
    const body = JSON.parse(sent!.body.toString("utf8")) as Record<string, unknown>;
    expect(body).not.toHaveProperty("model");
    expect(body).not.toHaveProperty("stream");
    expect(body.anthropic_version).toEqual(expect.any(String));
    // The Messages API request it stands for reached the scripted model with the same content.
    expect(fake.model.requests[0]!.body).toMatchObject({
      model: MODEL,
      stream: true,
      system: request.system,
      tools: request.tools,
      messages: request.messages,
    });
  });

  it("a request signed with the wrong secret is refused (403), and the error is not retried", async () => {
    fake = await startFakeBedrock([readTurn]);
    const error = await failure(clientFor(fake, { secretAccessKey: "not-the-secret-0000000000000000" }).create(request, new AbortController().signal));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toMatch(/^Bedrock HTTP 403: /);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.signature).toEqual({ ok: false, reason: "the signature does not match the request" });
    expect(fake.model.requests).toHaveLength(0);
  });

  it("the fake's check fails a signed request altered after signing: body, path, host, date or session token", async () => {
    fake = await startFakeBedrock([readTurn]);
    await clientFor(fake).create(request, new AbortController().signal);
    const signed = fake.requests[0]!;
    const expected = { ...fake.credentials, region: fake.region, service: "bedrock" };
    expect(verifySigV4(signed, expected)).toMatchObject({ ok: true });

    const body = Buffer.from(signed.body.toString("utf8").replace("Read a.ts", "Read b.ts"));
    expect(verifySigV4({ ...signed, body }, expected)).toMatchObject({ ok: false, reason: "x-amz-content-sha256 is not the body's hash" });
    const { "x-amz-content-sha256": _hash, ...unhashed } = signed.headers;
    expect(verifySigV4({ ...signed, headers: unhashed, body }, expected)).toMatchObject({ ok: false, reason: "the signature does not match the request" });
    expect(verifySigV4({ ...signed, rawUrl: signed.rawUrl.replace("sonnet", "opus") }, expected)).toMatchObject({ ok: false });
    expect(verifySigV4({ ...signed, headers: { ...signed.headers, host: "bedrock-runtime.example.com" } }, expected)).toMatchObject({ ok: false });
    expect(verifySigV4(signed, { ...expected, now: Date.now() + 6 * 60_000 })).toMatchObject({ ok: false, reason: expect.stringContaining("expired") });
    expect(verifySigV4(signed, { ...expected, region: "eu-west-1" })).toMatchObject({ ok: false });
    expect(verifySigV4(signed, { ...expected, sessionToken: "another-session-token" })).toMatchObject({ ok: false, reason: "wrong session token" });
  });

  it("a throttled request (429) is retried by the SDK, honouring retry-after", async () => {
    fake = await startFakeBedrock([{ error: { status: 429 }, retryAfterMs: 5 }, readTurn]);
    const message = await clientFor(fake).create(request, new AbortController().signal);
    expect(message.stop_reason).toBe("tool_use");
    expect(fake.requests.map((r) => [r.status, r.signature.ok])).toEqual([
      [429, true],
      [200, true],
    ]);
  });

  it("an exception frame inside the stream (serviceUnavailableException) is retried; a validation error is not", async () => {
    fake = await startFakeBedrock([{ error: { status: 529 }, midStream: true }, readTurn, { error: { status: 400, message: "messages: bad" } }]);
    const client = clientFor(fake);
    const message = await client.create(request, new AbortController().signal);
    expect(message.stop_reason).toBe("tool_use");
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200]);

    const error = await failure(client.create(request, new AbortController().signal));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toBe("Bedrock HTTP 400: messages: bad");
  });

  it("a stream cut mid-way is retried and the second attempt's message returned", async () => {
    fake = await startFakeBedrock([{ ...readTurn, cutAfterEvents: 3 }, readTurn]);
    const message = await clientFor(fake).create(request, new AbortController().signal);
    expect(message.content).toHaveLength(2);
    expect(fake.model.requests).toHaveLength(2);
  });

  it("with a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) it sends the key as a bearer token and signs nothing", async () => {
    const apiKey = `bedrock-api-key-${"7".repeat(20)}`;
    fake = await startFakeBedrock([readTurn], { apiKey });
    const client = createBedrockClient({ region: fake.region, baseURL: fake.url, apiKey, maxRetries: 0 });
    await client.create(request, new AbortController().signal);
    expect(fake.requests[0]).toMatchObject({ bearer: true, status: 200 });
    expect(fake.requests[0]!.headers).not.toHaveProperty("x-amz-date");
  });
});
