// WebFetch with a prompt makes a side call (a model reads the page and answers), and WebFetch is a
// read, so every WebFetch of one reply runs at once. Each side call was checked against the job's
// budget with the job's mean response as its estimate, and a cached turn is cheap beside a call that
// reads 100,000 characters of a page: forty calls of one reply all passed the check of a budget
// that had room for four, and the job spent ten times what was left of its reservation, past the
// daily cap it was clamped to. Now a job's side calls run one at a time, each checked against what
// the ones before it really cost: the overshoot is at most one call.
import { describe, expect, it } from "vitest";
import type { ModelClient, ModelMessage } from "../../src/agent/model-client.js";
import { createSideCalls } from "../../src/agent/side-calls.js";
import { createSpend } from "../../src/agent/spend.js";

/** claude-sonnet-4-6 at $3 per million input tokens: a page read costs $0.50. */
const PAGE_READ = { input_tokens: 166_667, output_tokens: 0 };
/** A cached turn of the job's agent: a cent. */
const CHEAP_TURN = { input_tokens: 3_334, output_tokens: 0 };
const MODEL = "claude-sonnet-4-6";

function answering(delayMs: number): ModelClient & { calls: number } {
  const client = {
    name: "fake",
    calls: 0,
    async create(): Promise<ModelMessage> {
      client.calls++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return {
        id: `msg_${client.calls}`,
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [{ type: "text", text: "the answer", citations: null }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { ...PAGE_READ, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      } as unknown as ModelMessage;
    },
  };
  return client;
}

describe("side calls of one reply, run at once", () => {
  it("spend at most one call past the job's budget", async () => {
    const spend = createSpend();
    spend.add(MODEL, CHEAP_TURN);
    const maxCostUsd = 2;
    const model = answering(20);
    const sideCalls = createSideCalls({ model, modelName: MODEL, spend, maxCostUsd, deadline: Date.now() + 60_000, clock: Date.now });
    const signal = new AbortController().signal;
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        sideCalls.complete({ path: `main/1/${i + 1}`, purpose: "web_fetch", system: "Answer.", prompt: `page ${i}`, maxTokens: 2_048 }, signal),
      ),
    );
    expect(results.some((result) => result.status === "rejected")).toBe(true);
    // $2 of budget, $0.01 spent: four page reads fit, a fifth may overshoot; forty may not.
    expect(spend.costUsd).toBeLessThanOrEqual(maxCostUsd + 0.51);
    expect(model.calls).toBeLessThanOrEqual(5);
  });
});
