// tokenCount, the one check of a server's usage numbers: what it takes, what it refuses and how it
// says so; then through each provider's real client against its loopback fake, where a count that is
// not one fails the call, naming the field, without a retry.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import { createBedrockClient } from "../../../src/agent/bedrock-client.js";
import type { MessageRequest, ModelClient } from "../../../src/agent/model-client.js";
import { createOpenAIClient } from "../../../src/agent/openai-client.js";
import { tokenCount } from "../../../src/agent/token-count.js";
import { createVertexClient } from "../../../src/agent/vertex-client.js";
import { isTackleError } from "../../../src/errors/tackle-error.js";
import { startFakeAnthropic, type ScriptedTurn } from "../../fakes/fake-anthropic.js";
import { startFakeBedrock } from "../../fakes/fake-bedrock.js";
import { startFakeOpenAI } from "../../fakes/fake-openai.js";
import { startFakeVertex } from "../../fakes/fake-vertex.js";

/** What tokenCount threw for `value`, or a note that it returned. */
function refusal(value: unknown): unknown {
  try {
    return new Error(`returned ${tokenCount(value, "usage.output_tokens of message_delta", "Test API")}`);
  } catch (error) {
    return error;
  }
}

describe("tokenCount", () => {
  it("takes a non-negative safe integer as it is", () => {
    for (const value of [0, 1, 4096, 200_000, Number.MAX_SAFE_INTEGER]) expect(tokenCount(value, "f", "Test API")).toBe(value);
  });

  it("reads an absent count (undefined, null) as 0", () => {
    expect(tokenCount(undefined, "f", "Test API")).toBe(0);
    expect(tokenCount(null, "f", "Test API")).toBe(0);
  });

  it.each([
    [-1, "-1"],
    [-5_000_000, "-5000000"],
    [1.5, "1.5"],
    [Number.MAX_SAFE_INTEGER + 1, "9007199254740992"],
    [Number.POSITIVE_INFINITY, "Infinity"],
    [Number.NEGATIVE_INFINITY, "-Infinity"],
    [Number.NaN, "NaN"],
    ["lots", '"lots"'],
    ["12", '"12"'],
    [true, "true"],
    [{ total: 3 }, '{"total":3}'],
    [[3], "[3]"],
  ])("refuses %s: a model_api error, not retryable, naming the field, the value and the sender", (value, shown) => {
    const error = refusal(value);
    expect(isTackleError(error, "model_api"), String(error)).toBe(true);
    expect(isTackleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toBe(
      `Test API reported usage.output_tokens of message_delta = ${shown}, which is not a token count (a whole number from 0 to 2^53 - 1): the response's cost cannot be counted, so it is refused`,
    );
  });

  it("shows at most 40 characters of what the server sent", () => {
    const message = (refusal("x".repeat(10_000)) as Error).message;
    expect(message).toContain(`= "${"x".repeat(39)}…, which`);
    expect(message.length).toBeLessThan(300);
  });
});

const request: MessageRequest = { model: "claude-sonnet-4-6", max_tokens: 100, messages: [{ role: "user", content: "hi" }] };
/** A reply whose final output count is negative, the rest as the fakes compute them. */
const negative: ScriptedTurn = { content: [{ type: "text", text: "ok" }], usage: { output_tokens: -5_000_000 } };
/** One whose prompt count is fractional (Anthropic's is sent in message_start, OpenAI's in the usage chunk). */
const fractional: ScriptedTurn = { content: [{ type: "text", text: "ok" }], usage: { input_tokens: 10.5 } };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const providers: Array<[string, (turn: ScriptedTurn) => Promise<{ client: ModelClient; requests(): number }>, { output: string; input: string }]> = [
  [
    "anthropic",
    async (turn) => {
      const fake = await startFakeAnthropic([turn, turn, turn]);
      cleanups.push(() => fake.close());
      return { client: createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 2 }), requests: () => fake.requests.length };
    },
    {
      output: "Anthropic API reported usage.output_tokens of message_delta = -5000000",
      input: "Anthropic API reported usage.input_tokens of message_start = 10.5",
    },
  ],
  [
    "bedrock",
    async (turn) => {
      const fake = await startFakeBedrock([turn, turn, turn], { apiKey: "bedrock-api-key-test" });
      cleanups.push(() => fake.close());
      const client = createBedrockClient({ region: fake.region, baseURL: fake.url, apiKey: "bedrock-api-key-test", maxRetries: 2 });
      return { client, requests: () => fake.requests.length };
    },
    { output: "Bedrock reported usage.output_tokens of message_delta = -5000000", input: "Bedrock reported usage.input_tokens of message_start = 10.5" },
  ],
  [
    "vertex",
    async (turn) => {
      const fake = await startFakeVertex([turn, turn, turn]);
      const dir = await mkdtemp(path.join(os.tmpdir(), "tackle-vertex-usage-"));
      cleanups.push(async () => {
        await fake.close();
        await rm(dir, { recursive: true, force: true });
      });
      const keyFile = await fake.writeCredentials(dir);
      const client = createVertexClient({ region: fake.region, projectId: fake.project, baseURL: fake.url, keyFile, maxRetries: 2 });
      return { client, requests: () => fake.requests.length };
    },
    { output: "Vertex AI reported usage.output_tokens of message_delta = -5000000", input: "Vertex AI reported usage.input_tokens of message_start = 10.5" },
  ],
  [
    "openai",
    async (turn) => {
      const fake = await startFakeOpenAI([turn, turn, turn]);
      cleanups.push(() => fake.close());
      return { client: createOpenAIClient({ baseURL: fake.url, apiKey: fake.apiKey ?? "", maxRetries: 2 }), requests: () => fake.requests.length };
    },
    { output: "OpenAI-compatible API reported usage.completion_tokens = -5000000", input: "OpenAI-compatible API reported usage.prompt_tokens = 10.5" },
  ],
];

describe.each(providers)("the %s client, told a count that is not one", (_name, start, says) => {
  it.each([
    ["a negative output count", negative, "output"],
    ["a fractional input count", fractional, "input"],
  ] as const)("fails the call on %s, naming the field, and does not send it again", async (_what, turn, field) => {
    const provider = await start(turn);
    const error = await provider.client.create(request, new AbortController().signal).then(
      (message) => new Error(`resolved with usage ${JSON.stringify(message.usage)}`),
      (rejected: unknown) => rejected,
    );
    expect(isTackleError(error, "model_api"), String(error)).toBe(true);
    expect(isTackleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toContain(says[field]);
    expect(provider.requests()).toBe(1);
  });
});
