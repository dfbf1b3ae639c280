import type { TokenUsage } from "./model-client.js";
import { costOf, type ModelPrice, type UsageLike } from "./pricing.js";

/**
 * What a job has spent on models, over its agent, its subagents and its tools' model calls: one meter
 * per job, so every conversation's budget check sees the whole job's cost.
 */
export interface Spend {
  readonly usage: Readonly<TokenUsage>;
  readonly costUsd: number;
  /** Model turns of subagents (the job's own agent counts its turns itself). */
  readonly subagentTurns: number;
  /** What the calls in flight are expected to cost: their conversations' budget checks count it as spent. */
  readonly reserved: number;
  /** The mean cost of a response so far (0 before the first). */
  readonly meanCostUsd: number;
  /** Counts one response's usage, priced for `model`; returns its cost. */
  add(model: string, usage: UsageLike): number;
  /** Holds `amount` for a call in flight; the returned function releases it (once the call is counted). */
  reserve(amount: number): () => void;
  countSubagentTurn(): void;
}

export interface SpendOptions {
  /**
   * Told each response's usage and cost as it is counted (the operator's metrics); what it throws is
   * ignored. @defaultValue none
   */
  onCharge?: (usage: Readonly<TokenUsage>, costUsd: number) => void;
  /** What a model costs on the job's provider. @defaultValue the Anthropic table (pricing.ts) */
  priceFor?: (model: string) => ModelPrice;
}

export function createSpend(options: SpendOptions = {}): Spend {
  const priceFor = options.priceFor;
  const usage: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let costUsd = 0;
  let subagentTurns = 0;
  let reserved = 0;
  let responses = 0;
  return {
    usage,
    get costUsd() {
      return costUsd;
    },
    get subagentTurns() {
      return subagentTurns;
    },
    get reserved() {
      return reserved;
    },
    get meanCostUsd() {
      return responses === 0 ? 0 : costUsd / responses;
    },
    reserve(amount) {
      reserved += amount;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        reserved -= amount;
      };
    },
    add(model, response) {
      const cost = costOf(model, response, priceFor?.(model));
      costUsd += cost;
      responses++;
      usage.input += response.input_tokens;
      usage.output += response.output_tokens;
      usage.cacheRead += response.cache_read_input_tokens ?? 0;
      usage.cacheWrite += response.cache_creation_input_tokens ?? 0;
      notify(options.onCharge, response, cost);
      return cost;
    },
    countSubagentTurn() {
      subagentTurns++;
    },
  };
}

function notify(onCharge: SpendOptions["onCharge"], response: UsageLike, costUsd: number): void {
  if (onCharge === undefined) return;
  const usage: TokenUsage = {
    input: response.input_tokens,
    output: response.output_tokens,
    cacheRead: response.cache_read_input_tokens ?? 0,
    cacheWrite: response.cache_creation_input_tokens ?? 0,
  };
  try {
    onCharge(usage, costUsd);
  } catch {
    // An observer's failure must not change what the job spent.
  }
}
