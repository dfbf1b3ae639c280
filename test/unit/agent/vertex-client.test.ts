import { failure } from "./helpers.js";
// The Vertex model client through @anthropic-ai/vertex-sdk and google-auth-library against the fake
// Vertex endpoint: the bearer token comes from a workload identity federation exchange with the fake's
// token service (an external_account credentials file), never from Google.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { createVertexClient } from "../../../src/agent/vertex-client.js";
import { startFakeVertex, type FakeVertex } from "../../fakes/fake-vertex.js";
import type { ScriptedTurn } from "../../fakes/index.js";

const MODEL = "claude-sonnet-4-5@20250929";

const request: MessageRequest = {
  model: MODEL,
  max_tokens: 1024,
  system: [{ type: "text", text: "You fix bugs.", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: "Read a.ts" }],
};

const readTurn: ScriptedTurn = { content: [{ type: "tool_use", name: "Read", input: { file_path: "src/a.ts" } }] };

let fake: FakeVertex | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  fake = dir = undefined;
});

async function setUp(script: ScriptedTurn[]): Promise<{ vertex: FakeVertex; keyFile: string }> {
  fake = await startFakeVertex(script);
  dir = await mkdtemp(path.join(os.tmpdir(), "tackle-vertex-"));
  return { vertex: fake, keyFile: await fake.writeCredentials(dir) };
}

describe("createVertexClient", () => {
  it("exchanges the credentials file's subject token for an access token, then streams with it as a bearer", async () => {
    const { vertex, keyFile } = await setUp([readTurn, readTurn]);
    const client = createVertexClient({ region: vertex.region, projectId: vertex.project, baseURL: vertex.url, keyFile, maxRetries: 0 });
    const message = await client.create(request, new AbortController().signal);
    expect(message.content).toEqual([expect.objectContaining({ type: "tool_use", name: "Read", input: { file_path: "src/a.ts" } })]);
    await client.create(request, new AbortController().signal);

    // One exchange, its token reused for both calls.
    expect(vertex.tokenExchanges).toHaveLength(1);
    expect(vertex.tokenExchanges[0]!.form).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      scope: "https://www.googleapis.com/auth/cloud-platform",
    });
    const token = vertex.tokenExchanges[0]!.issued!;
    expect(vertex.requests.map((r) => [r.path, r.stream, r.authorized, r.status, r.headers.authorization])).toEqual(
      Array(2).fill([
        `/v1/projects/${vertex.project}/locations/${vertex.region}/publishers/anthropic/models/${MODEL}:streamRawPredict`,
        true,
        true,
        200,
        `Bearer ${token}`,
      ]),
    );
    expect(vertex.requests[0]!.body).not.toHaveProperty("model");
    expect(vertex.requests[0]!.body.anthropic_version).toEqual(expect.any(String));
    expect(vertex.model.requests[0]!.body).toMatchObject({ model: MODEL, stream: true, system: request.system, messages: request.messages });
  });

  it("a credentials file whose subject token the token service refuses fails the call, and nothing reaches the model", async () => {
    const { vertex, keyFile } = await setUp([readTurn]);
    await writeFile(path.join(dir!, "oidc-subject-token"), "a-token-nobody-issued");
    const client = createVertexClient({ region: vertex.region, projectId: vertex.project, baseURL: vertex.url, keyFile, maxRetries: 0 });
    const error = await failure(client.create(request, new AbortController().signal));
    expect(error).toMatchObject({ code: "model_api" });
    expect(error.message).toMatch(/Google OAuth|invalid_grant/);
    expect(vertex.tokenExchanges[0]!.issued).toBeUndefined();
    expect(vertex.requests).toHaveLength(0);
  });

  it("a missing credentials file fails the call with a TackleError, not an unhandled rejection", async () => {
    const { vertex } = await setUp([readTurn]);
    const client = createVertexClient({
      region: vertex.region,
      projectId: vertex.project,
      baseURL: vertex.url,
      keyFile: path.join(dir!, "absent.json"),
      maxRetries: 0,
    });
    const error = await failure(client.create(request, new AbortController().signal));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toContain("absent.json");
    expect(vertex.requests).toHaveLength(0);
  });

  it("a rate limit (429) is retried by the SDK; Vertex's error body gives the message of what is not", async () => {
    const { vertex, keyFile } = await setUp([
      { error: { status: 429 }, retryAfterMs: 5 },
      readTurn,
      { error: { status: 400, message: "max_tokens: too large" } },
    ]);
    const client = createVertexClient({ region: vertex.region, projectId: vertex.project, baseURL: vertex.url, keyFile, maxRetries: 2 });
    expect((await client.create(request, new AbortController().signal)).stop_reason).toBe("tool_use");
    expect(vertex.requests.map((r) => r.status)).toEqual([429, 200]);
    const error = await failure(client.create(request, new AbortController().signal));
    expect(error).toMatchObject({ code: "model_api", retryable: false, message: "Vertex AI HTTP 400: max_tokens: too large" });
  });

  it("a request for another project is refused by the endpoint (403)", async () => {
    const { vertex, keyFile } = await setUp([readTurn]);
    const client = createVertexClient({ region: vertex.region, projectId: "someone-elses-project", baseURL: vertex.url, keyFile, maxRetries: 0 });
    const error = await failure(client.create(request, new AbortController().signal));
    expect(error).toMatchObject({ code: "model_api", retryable: false });
    expect(error.message).toMatch(/^Vertex AI HTTP 403: Permission denied on project someone-elses-project/);
  });
});
