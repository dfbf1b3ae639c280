import type { TokenUsage } from "./model-client.js";
import { costOf, type UsageLike } from "./pricing.js";

/**
 * What a job has spent on models, over its agent, its subagents and its tools' model calls: one meter
 * per job, so every conversation's budget check sees the whole job's cost.
 */
export interface Spend {
  readonly usage: Readonly<TokenUsage>;
  readonly costUsd: number;
  /** Model turns of subagents (the job's own agent counts its turns itself). */
  readonly subagentTurns: number;
  /** Counts one response's usage, priced for `model`; returns its cost. */
  add(model: string, usage: UsageLike): number;
  countSubagentTurn(): void;
}

export function createSpend(): Spend {
  const usage: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let costUsd = 0;
  let subagentTurns = 0;
  return {
    usage,
    get costUsd() {
      return costUsd;
    },
    get subagentTurns() {
      return subagentTurns;
    },
    add(model, response) {
      const cost = costOf(model, response);
      costUsd += cost;
      usage.input += response.input_tokens;
      usage.output += response.output_tokens;
      usage.cacheRead += response.cache_read_input_tokens ?? 0;
      usage.cacheWrite += response.cache_creation_input_tokens ?? 0;
      return cost;
    },
    countSubagentTurn() {
      subagentTurns++;
    },
  };
}
