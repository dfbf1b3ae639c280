/**
 * What a model call costs, in USD, from the `usage` the API reports. Prices are per million tokens.
 * Cache writes (5 minutes) cost 1.25× input and cache reads 0.1× input unless a model says otherwise;
 * 1-hour cache writes cost 2× input. Source: the Claude pricing page; re-check it when models change.
 *
 * Per provider, by the model id each one uses:
 * - Anthropic: `claude-sonnet-4-5-20250929`, the table below.
 * - Vertex AI: `claude-sonnet-4-5@20250929` finds the same family by its prefix, at the same price.
 *   Vertex bills its regional endpoints 10% above `global` for the models with a regional premium
 *   (below); the region is not in the id, so a regional endpoint's cost reads 10% low.
 * - Bedrock: `anthropic.claude-sonnet-4-5-20250929-v1:0`, or behind an inference profile
 *   (`global.`, `us.`, `eu.`, `apac.`, `jp.`, `au.`…): the family after `anthropic.`, at the same price
 *   through `global.`, and 10% above it in-region or through a geographic profile, for the models with
 *   a regional premium. An application inference profile's ARN names no model: priced as unknown.
 * - OpenAI-compatible servers (TACKLE_PROVIDER=openai): OpenAI's models from the OpenAI pricing page,
 *   likewise; see providerPrice.
 */
import type { ConfiguredPrice, ModelProvider } from "../config/index.js";

export interface ModelPrice {
  /** USD per million uncached input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
  /** USD per million tokens written to the 5-minute cache. @defaultValue 1.25 × input */
  cacheWrite5m?: number;
  /** USD per million tokens written to the 1-hour cache. @defaultValue 2 × input */
  cacheWrite1h?: number;
  /** USD per million tokens read from the cache. @defaultValue 0.1 × input */
  cacheRead?: number;
  /** A higher rate for every token of a request whose prompt (input + cache) passes a threshold. */
  longPrompt?: { thresholdTokens: number; price: ModelPrice };
}

/** The usage fields costOf reads; the SDK's `Usage` fits, and so does a hand-written one. */
export interface UsageLike {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } | null;
}

/**
 * Model id prefixes and their prices. The longest matching prefix wins, so dated ids
 * (`claude-sonnet-4-5-20250929`) and suffixed ones (`claude-opus-5-5[1m]`) find their family.
 */
const PRICES: ReadonlyArray<readonly [prefix: string, price: ModelPrice]> = [
  ["claude-fable-5-1", { input: 10, output: 50, cacheRead: 0.25 }],
  ["claude-mythos-5-1", { input: 10, output: 50, cacheRead: 0.25 }],
  ["claude-fable-5", { input: 10, output: 50 }],
  ["claude-mythos-5", { input: 10, output: 50 }],
  ["claude-opus-5-5", { input: 4, output: 20, cacheRead: 0.2 }],
  ["claude-opus-5", { input: 5, output: 25 }],
  ["claude-opus-4-8", { input: 5, output: 25 }],
  ["claude-opus-4-7", { input: 5, output: 25 }],
  ["claude-opus-4-6", { input: 5, output: 25 }],
  ["claude-opus-4-5", { input: 5, output: 25 }],
  ["claude-opus-4-1", { input: 15, output: 75 }],
  ["claude-opus-4", { input: 15, output: 75 }],
  ["claude-3-opus", { input: 15, output: 75 }],
  ["claude-sonnet-5-5", { input: 2, output: 10 }],
  ["claude-sonnet-5", { input: 2, output: 10 }],
  ["claude-sonnet-4-6", { input: 3, output: 15 }],
  ["claude-sonnet-4-5", { input: 3, output: 15 }],
  ["claude-sonnet-4", { input: 3, output: 15 }],
  ["claude-3-7-sonnet", { input: 3, output: 15 }],
  ["claude-3-5-sonnet", { input: 3, output: 15 }],
  ["claude-haiku-5-5", { input: 0.1, output: 0.5, longPrompt: { thresholdTokens: 100_000, price: { input: 0.5, output: 2.5 } } }],
  ["claude-haiku-4-5", { input: 1, output: 5 }],
  ["claude-3-5-haiku", { input: 0.8, output: 4 }],
  ["claude-3-haiku", { input: 0.25, output: 1.25, cacheWrite5m: 0.3, cacheRead: 0.03 }],
];

/**
 * Families that cost the same on every endpoint: those before Claude Sonnet 4.5 and Haiku 4.5. Every
 * later one costs 10% more on a regional endpoint than on a global one (Bedrock and Vertex).
 */
const NO_REGIONAL_PREMIUM = new Set([
  "claude-opus-4-1",
  "claude-opus-4",
  "claude-3-opus",
  "claude-sonnet-4",
  "claude-3-7-sonnet",
  "claude-3-5-sonnet",
  "claude-3-5-haiku",
  "claude-3-haiku",
]);

const REGIONAL_PREMIUM = 1.1;

/** `[profile.]anthropic.<id>`: a Bedrock model id, with the inference profile's geography when there is one. */
const BEDROCK_MODEL_ID = /^(?:([a-z]{2,6}(?:-[a-z]+)?)\.)?anthropic\.(.+)$/;

/**
 * An unknown model is priced like the most expensive family, so a cost budget errs on the side of
 * stopping early rather than overspending.
 */
export const DEFAULT_PRICE: ModelPrice = { input: 15, output: 75 };

export function priceOf(model: string): { price: ModelPrice; known: boolean } {
  const bedrock = BEDROCK_MODEL_ID.exec(model);
  const id = bedrock?.[2] ?? model;
  let best: readonly [string, ModelPrice] | undefined;
  for (const entry of PRICES) {
    if (id.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  }
  if (best === undefined) return { price: DEFAULT_PRICE, known: false };
  const regional = bedrock !== null && bedrock[1] !== "global" && !NO_REGIONAL_PREMIUM.has(best[0]);
  return { price: regional ? scaled(best[1], REGIONAL_PREMIUM) : best[1], known: true };
}

/** Every rate of a price times `factor` (the cache rates a price leaves out follow its input). */
function scaled(price: ModelPrice, factor: number): ModelPrice {
  const result: ModelPrice = { input: price.input * factor, output: price.output * factor };
  if (price.cacheWrite5m !== undefined) result.cacheWrite5m = price.cacheWrite5m * factor;
  if (price.cacheWrite1h !== undefined) result.cacheWrite1h = price.cacheWrite1h * factor;
  if (price.cacheRead !== undefined) result.cacheRead = price.cacheRead * factor;
  if (price.longPrompt !== undefined) result.longPrompt = { thresholdTokens: price.longPrompt.thresholdTokens, price: scaled(price.longPrompt.price, factor) };
  return result;
}

/**
 * OpenAI's own models, as an OpenAI-compatible server (LiteLLM in front of OpenAI) names them. A cached
 * read's discount differs by family, so each says it.
 */
const OPENAI_PRICES: ReadonlyArray<readonly [prefix: string, price: ModelPrice]> = [
  ["gpt-5-nano", { input: 0.05, output: 0.4, cacheRead: 0.005 }],
  ["gpt-5-mini", { input: 0.25, output: 2, cacheRead: 0.025 }],
  ["gpt-5", { input: 1.25, output: 10, cacheRead: 0.125 }],
  ["gpt-4.1-nano", { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ["gpt-4.1-mini", { input: 0.4, output: 1.6, cacheRead: 0.1 }],
  ["gpt-4.1", { input: 2, output: 8, cacheRead: 0.5 }],
  ["gpt-4o-mini", { input: 0.15, output: 0.6, cacheRead: 0.075 }],
  ["gpt-4o", { input: 2.5, output: 10, cacheRead: 1.25 }],
  ["o4-mini", { input: 1.1, output: 4.4, cacheRead: 0.275 }],
  ["o3-pro", { input: 20, output: 80 }],
  ["o3-mini", { input: 1.1, output: 4.4, cacheRead: 0.55 }],
  ["o3", { input: 2, output: 8, cacheRead: 0.5 }],
  ["gpt-5-pro", { input: 15, output: 120 }],
  ["o1-pro", { input: 150, output: 600 }],
  ["o1-mini", { input: 1.1, output: 4.4, cacheRead: 0.55 }],
  ["o1", { input: 15, output: 60, cacheRead: 7.5 }],
];

/** What may follow a listed id for the same model: a date or a moving alias (`o3-2025-04-16`, `gpt-5-chat-latest`). */
const SAME_MODEL_SUFFIX = /^(?:-\d{4}-\d{2}-\d{2}|-\d{4}|-latest|-chat-latest)?$/;

/** The dearest listed OpenAI price, for an id that extends a listed one with anything else (`o3-pro` before it was listed). */
const DEAREST_OPENAI: ModelPrice = {
  input: Math.max(...OPENAI_PRICES.map(([, price]) => price.input)),
  output: Math.max(...OPENAI_PRICES.map(([, price]) => price.output)),
};

/** A self-hosted model (vLLM, Ollama) costs its operator nothing per token unless TACKLE_MODEL_PRICES says so. */
export const FREE_PRICE: ModelPrice = { input: 0, output: 0, cacheRead: 0 };

/**
 * A model's price on a provider: the operator's TACKLE_MODEL_PRICES first (longest prefix), then the
 * provider's table (priceOf, which reads Bedrock's and Vertex's ids too). On `openai` a listed id counts
 * with a date or `-latest` after it, and one extended otherwise (`o3-pro`) is priced as the dearest listed; an unknown model
 * is free (a self-hosted server bills nobody per token) and a Claude model is priced as Anthropic's (a
 * LiteLLM proxy in front of it); elsewhere an unknown
 * model is priced like the dearest family (DEFAULT_PRICE).
 */
export function providerPrice(provider: ModelProvider, model: string, configured: readonly ConfiguredPrice[] = []): ModelPrice {
  const own = longestPrefix(
    configured.map((entry) => [entry.prefix, entry] as const),
    model,
  );
  if (own !== undefined) return { input: own.input, output: own.output, ...(own.cacheRead === undefined ? {} : { cacheRead: own.cacheRead }) };
  if (provider !== "openai") return priceOf(model).price;
  const claude = priceOf(model);
  const listed = longestPrefixEntry(OPENAI_PRICES, model);
  if (listed === undefined) return claude.known ? claude.price : FREE_PRICE;
  // Longest prefix alone priced `o3-pro` as `o3`, ten times below its list price: another suffix is
  // another model, priced as the dearest listed until TACKLE_MODEL_PRICES names it.
  return SAME_MODEL_SUFFIX.test(model.slice(listed[0].length)) ? listed[1] : DEAREST_OPENAI;
}

function longestPrefixEntry<T>(table: ReadonlyArray<readonly [string, T]>, model: string): readonly [string, T] | undefined {
  let best: readonly [string, T] | undefined;
  for (const entry of table) {
    if (model.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  }
  return best;
}

function longestPrefix<T>(table: ReadonlyArray<readonly [string, T]>, model: string): T | undefined {
  return longestPrefixEntry(table, model)?.[1];
}

/** USD cost of one response's usage. @param base the model's price; @defaultValue the Anthropic table's (priceOf) */
export function costOf(model: string, usage: UsageLike, base: ModelPrice = priceOf(model).price): number {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = usage.input_tokens + cacheWrite + cacheRead;
  const price = base.longPrompt !== undefined && prompt > base.longPrompt.thresholdTokens ? base.longPrompt.price : base;

  // The breakdown by TTL, when present, says how much of the write went to the pricier 1-hour cache.
  const write1h = Math.min(usage.cache_creation?.ephemeral_1h_input_tokens ?? 0, cacheWrite);
  const write5m = cacheWrite - write1h;

  const dollars =
    usage.input_tokens * price.input +
    usage.output_tokens * price.output +
    write5m * (price.cacheWrite5m ?? price.input * 1.25) +
    write1h * (price.cacheWrite1h ?? price.input * 2) +
    cacheRead * (price.cacheRead ?? price.input * 0.1);
  return dollars / 1_000_000;
}
