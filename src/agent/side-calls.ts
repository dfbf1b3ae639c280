import { TackleError } from "../errors/tackle-error.js";
import type { ModelClient, ModelMessage } from "./model-client.js";
import type { Spend } from "./spend.js";
import type { CallPurpose, TranscriptSink } from "./transcript.js";

/** Model calls a tool makes on the job's behalf (WebFetch answering a prompt over a page). */
export interface SideCalls {
  /**
   * One tool-less call, keyed in the job's tree at `path` (the tool call's place): counted against the
   * job's budget, recorded in its transcript (so a replay serves it), cut by the job's deadline.
   * Rejects with TackleError("budget_exhausted") when the job's budget is spent.
   */
  complete(input: { path: string; purpose: CallPurpose; system: string; prompt: string; maxTokens: number }, signal: AbortSignal): Promise<string>;
}

export interface SideCallsOptions {
  model: ModelClient;
  modelName: string;
  spend: Spend;
  maxCostUsd: number;
  /** Epoch ms on `clock`. */
  deadline: number;
  clock: () => number;
  transcript?: TranscriptSink;
}

/**
 * One job's side calls, one at a time: the WebFetch calls of one reply run at once, and each side call
 * is checked with the job's mean response as its estimate, which a call reading a whole page can pass
 * many times over. In turn, each is checked against what the ones before it really cost, so together
 * they pass the budget by at most one call.
 */
export function createSideCalls(options: SideCallsOptions): SideCalls {
  let last: Promise<unknown> = Promise.resolve();
  return {
    complete(input, signal) {
      const call = last.then(() => completeOne(options, input, signal));
      last = call.catch(() => undefined);
      return call;
    },
  };
}

async function completeOne(options: SideCallsOptions, input: Parameters<SideCalls["complete"]>[0], signal: AbortSignal): Promise<string> {
  const estimate = options.spend.meanCostUsd;
  if (options.spend.costUsd + options.spend.reserved + estimate > options.maxCostUsd) {
    throw new TackleError("budget_exhausted", `the job's cost budget of $${options.maxCostUsd.toFixed(2)} is spent`);
  }
  const msLeft = options.deadline - options.clock();
  if (msLeft <= 0) throw new TackleError("budget_exhausted", "the job's time limit has passed");
  const request = {
    model: options.modelName,
    max_tokens: input.maxTokens,
    system: input.system,
    messages: [{ role: "user" as const, content: input.prompt }],
  };
  const sink = options.transcript?.child?.(input.path);
  await sink?.request(1, input.purpose, request).catch(() => undefined);
  const cut = AbortSignal.any([signal, AbortSignal.timeout(Math.min(msLeft, 2 ** 31 - 1))]);
  const release = options.spend.reserve(estimate);
  const response: ModelMessage = await options.model.create(request, cut, { agent: input.path }).finally(release);
  options.spend.add(options.modelName, response.usage);
  await sink?.response(1, input.purpose, response).catch(() => undefined);
  return response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
}
