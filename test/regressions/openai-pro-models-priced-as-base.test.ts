// Broken (red team of #20, fourteenth pass, daily cost caps): on the `openai` provider the price of a
// model is its longest prefix in OPENAI_PRICES (src/agent/pricing.ts › providerPrice, longestPrefix), so
// a dearer model whose id merely starts with a cheaper one's takes the cheaper price: `o3-pro` is counted
// as `o3` ($2/$8 per million instead of OpenAI's $20/$80), `gpt-5-pro` as `gpt-5` ($1.25/$10 instead of
// $15/$120). A repository picks its `model:` among TACKLE_ALLOWED_MODELS; one naming such a model spends
// 10-12x what `max_cost_usd`, `daily_budget_usd` and TACKLE_DAILY_BUDGET_USD meter, and the README says
// these families are "priced from OpenAI's list". Measured: providerPrice("openai", id) for the two ids,
// and costOf for one million input + one million output tokens: $10 and $11.25, against $100 and $135.
// What should hold: a model id the table does not price exactly (a dated snapshot aside) is never
// priced below what it costs: an unknown variant of a priced family takes a price at least its own
// (or is refused until TACKLE_MODEL_PRICES prices it), so the cost caps hold whatever allowed model a
// repository names.
// Fixed: a listed OpenAI id counts only with a date or `-latest` after it; another suffix is priced as the dearest listed, and o3-pro, gpt-5-pro, o1-pro, o1 are listed (src/agent/pricing.ts › providerPrice).
import { describe, expect, it } from "vitest";
import { costOf, providerPrice } from "../../src/agent/pricing.js";

const MILLION = { input_tokens: 1_000_000, output_tokens: 1_000_000 };

describe("the price of an OpenAI model whose id extends a cheaper one's", () => {
  it.each([
    // OpenAI's list price, input + output for a million tokens each.
    ["o3-pro", 20 + 80],
    ["gpt-5-pro", 15 + 120],
  ])("%s is not counted below its list price", (model, listUsd) => {
    const counted = costOf(model, MILLION, providerPrice("openai", model));
    expect(counted).toBeGreaterThanOrEqual(listUsd);
  });
});
