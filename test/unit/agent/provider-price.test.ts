import { describe, expect, it } from "vitest";
import { costOf, DEFAULT_PRICE, FREE_PRICE, priceOf, providerPrice } from "../../../src/agent/pricing.js";
import { createSpend } from "../../../src/agent/spend.js";

const USAGE = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 };

describe("providerPrice", () => {
  it("openai: OpenAI's own models from their table, cached reads at each family's rate", () => {
    expect(providerPrice("openai", "gpt-4.1-2025-04-14")).toEqual({ input: 2, output: 8, cacheRead: 0.5 });
    expect(providerPrice("openai", "gpt-4.1-mini")).toEqual({ input: 0.4, output: 1.6, cacheRead: 0.1 });
    expect(costOf("gpt-4o", USAGE, providerPrice("openai", "gpt-4o"))).toBeCloseTo(2.5 + 10 + 1.25);
  });

  it("openai: a self-hosted model unknown to the table costs nothing; a Claude model behind a proxy costs Anthropic's price", () => {
    expect(providerPrice("openai", "Qwen/Qwen3-Coder-30B-A3B-Instruct")).toEqual(FREE_PRICE);
    expect(costOf("llama3.1:8b", USAGE, providerPrice("openai", "llama3.1:8b"))).toBe(0);
    expect(providerPrice("openai", "claude-sonnet-4-6")).toEqual(priceOf("claude-sonnet-4-6").price);
  });

  it("the operator's prices win, longest prefix first, on any provider", () => {
    const configured = [
      { prefix: "Qwen/", input: 0.2, output: 0.6 },
      { prefix: "Qwen/Qwen3-Coder", input: 0.4, output: 1.2, cacheRead: 0.04 },
      { prefix: "claude-sonnet-4-6", input: 3.3, output: 16.5 },
    ];
    expect(providerPrice("openai", "Qwen/Qwen3-Coder-30B", configured)).toEqual({ input: 0.4, output: 1.2, cacheRead: 0.04 });
    expect(providerPrice("openai", "Qwen/Qwen2.5-7B", configured)).toEqual({ input: 0.2, output: 0.6 });
    expect(providerPrice("anthropic", "claude-sonnet-4-6-20260101", configured)).toEqual({ input: 3.3, output: 16.5 });
    // Without a cache price of its own, a cached read costs a tenth of the input, as in the table.
    expect(
      costOf(
        "Qwen/Qwen2.5-7B",
        { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 },
        providerPrice("openai", "Qwen/Qwen2.5-7B", configured),
      ),
    ).toBeCloseTo(0.02);
  });

  it("anthropic: an unknown model is priced like the dearest family, as before", () => {
    expect(providerPrice("anthropic", "some-new-model")).toEqual(DEFAULT_PRICE);
    expect(providerPrice("anthropic", "claude-haiku-4-5")).toEqual(priceOf("claude-haiku-4-5").price);
  });
});

describe("createSpend with a provider's prices", () => {
  it("prices each response with the function it was given, and with the Anthropic table without one", () => {
    const free = createSpend({ priceFor: () => FREE_PRICE });
    expect(free.add("llama3.1:8b", USAGE)).toBe(0);
    expect(free.usage).toEqual({ input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 0 });
    const table = createSpend();
    expect(table.add("claude-sonnet-4-6", USAGE)).toBeCloseTo(3 + 15 + 0.3);
  });
});
