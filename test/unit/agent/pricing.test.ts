import { describe, expect, it } from "vitest";
import { DEFAULT_PRICE, costOf, priceOf } from "../../../src/agent/pricing.js";

const million = { input_tokens: 1_000_000, output_tokens: 0 };

describe("pricing", () => {
  it.each([
    ["claude-sonnet-4-5", 3, 15],
    ["claude-sonnet-4-5-20250929", 3, 15],
    ["claude-sonnet-4-20250514", 3, 15],
    ["claude-opus-4-1-20250805", 15, 75],
    ["claude-opus-4-5", 5, 25],
    ["claude-haiku-4-5", 1, 5],
    ["claude-3-5-haiku-latest", 0.8, 4],
    ["claude-opus-5-5[1m]", 4, 20],
  ])("%s costs $%d in / $%d out per million tokens", (model, input, output) => {
    expect(priceOf(model).known).toBe(true);
    expect(costOf(model, million)).toBeCloseTo(input, 9);
    expect(costOf(model, { input_tokens: 0, output_tokens: 1_000_000 })).toBeCloseTo(output, 9);
  });

  it("prices cache writes at 1.25x and reads at 0.1x input by default", () => {
    const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 };
    expect(costOf("claude-sonnet-4-5", usage)).toBeCloseTo(3.75 + 0.3, 9);
  });

  it("prices 1-hour cache writes at 2x input when the breakdown says so", () => {
    const usage = {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 2_000_000,
      cache_creation: { ephemeral_5m_input_tokens: 1_000_000, ephemeral_1h_input_tokens: 1_000_000 },
    };
    expect(costOf("claude-sonnet-4-5", usage)).toBeCloseTo(3.75 + 6, 9);
  });

  it("uses a model's own cache-read rate and long-prompt tier", () => {
    expect(costOf("claude-opus-5-5", { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 })).toBeCloseTo(0.2, 9);
    expect(costOf("claude-haiku-5-5", { input_tokens: 100_000, output_tokens: 0 })).toBeCloseTo(0.01, 9);
    expect(costOf("claude-haiku-5-5", { input_tokens: 200_000, output_tokens: 0 })).toBeCloseTo(0.1, 9);
  });

  it("prices an unknown model at the conservative default", () => {
    expect(priceOf("gpt-9")).toEqual({ price: DEFAULT_PRICE, known: false });
    expect(costOf("some-new-model", million)).toBe(DEFAULT_PRICE.input);
  });

  it.each([
    // Vertex AI: `<id>@<date>` finds its family by prefix, at Anthropic's price.
    ["claude-sonnet-4-5@20250929", 3, 15],
    ["claude-opus-4-1@20250805", 15, 75],
    ["claude-3-5-sonnet-v2@20241022", 3, 15],
    ["claude-haiku-4-5@20251001", 1, 5],
    // Bedrock through the global profile, and older families everywhere: Anthropic's price.
    ["global.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 15],
    ["global.anthropic.claude-sonnet-4-6", 3, 15],
    ["us.anthropic.claude-sonnet-4-20250514-v1:0", 3, 15],
    ["anthropic.claude-opus-4-1-20250805-v1:0", 15, 75],
    ["anthropic.claude-3-haiku-20240307-v1:0", 0.25, 1.25],
    // Bedrock in-region or through a geographic profile, from Sonnet 4.5 and Haiku 4.5 on: 10% more.
    ["anthropic.claude-sonnet-4-5-20250929-v1:0", 3.3, 16.5],
    ["us.anthropic.claude-sonnet-4-6", 3.3, 16.5],
    ["eu.anthropic.claude-haiku-4-5-20251001-v1:0", 1.1, 5.5],
    ["apac.anthropic.claude-opus-4-6-v1", 5.5, 27.5],
    ["us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.3, 16.5],
  ])("on Bedrock and Vertex, %s costs $%s in / $%s out per million tokens", (model, input, output) => {
    expect(priceOf(model).known).toBe(true);
    expect(costOf(model, million)).toBeCloseTo(input, 9);
    expect(costOf(model, { input_tokens: 0, output_tokens: 1_000_000 })).toBeCloseTo(output, 9);
  });

  it("carries Bedrock's regional premium into a model's own cache and long-prompt rates", () => {
    const cacheRead = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 };
    expect(costOf("global.anthropic.claude-opus-5-5", cacheRead)).toBeCloseTo(0.2, 9);
    expect(costOf("eu.anthropic.claude-opus-5-5", cacheRead)).toBeCloseTo(0.22, 9);
    // The default cache rates follow the scaled input: 1.25 × 3.3 written, 0.1 × 3.3 read.
    const cached = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 };
    expect(costOf("us.anthropic.claude-sonnet-4-5-20250929-v1:0", cached)).toBeCloseTo(4.125 + 0.33, 9);
    expect(costOf("us.anthropic.claude-haiku-5-5", { input_tokens: 200_000, output_tokens: 0 })).toBeCloseTo(0.11, 9);
  });

  it("prices a Bedrock application inference profile's ARN, which names no model, at the conservative default", () => {
    const arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3";
    expect(priceOf(arn)).toEqual({ price: DEFAULT_PRICE, known: false });
    expect(priceOf("anthropic.titan-text")).toEqual({ price: DEFAULT_PRICE, known: false });
  });

  it("treats null cache fields as zero", () => {
    expect(
      costOf("claude-haiku-4-5", { input_tokens: 1_000_000, output_tokens: 0, cache_read_input_tokens: null, cache_creation_input_tokens: null }),
    ).toBeCloseTo(1, 9);
  });
});
