// An OpenAI-compatible server's usage numbers were taken as sent. A negative `prompt_tokens` made a
// response's cost negative, so the job's meter went down and its max_cost_usd check never tripped; a
// number past what JSON parses finitely (1e309 is Infinity), or a string, made the cost Infinity or
// NaN. Settled into the daily ledger, such a cost broke it for the whole installation's day: in
// memory `spent` became NaN, and every later `cap - spent - held < wish` was false; on Redis,
// `string.format('%d', inf)` in the settle script is INT64_MIN, so `spent` went hugely negative.
// Either way every later job of the day ran with its full max_cost_usd, past TACKLE_DAILY_BUDGET_USD.
// Now a usage count is a non-negative safe integer, and the ledger counts only amounts it can add. (At
// first a bad count was read as 0; since anthropic-usage-taken-as-sent.test.ts every provider checks
// counts with one function, tokenCount, and a value that is not a count fails the response, naming the
// field, rather than stand in for one: the meter then counts nothing of it.)
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accumulateChatCompletion } from "../../src/agent/accumulate-chat-completion.js";
import { createDailyBudget, type DailyBudget } from "../../src/jobs/index.js";
import { isTackleError } from "../../src/errors/tackle-error.js";
import { silentLogger } from "../../src/logging/logger.js";
import { deleteKeys, testRedis } from "../integration/queue/redis-server.js";

const NOON = Date.UTC(2031, 2, 3, 12, 0, 0);

async function* stream(usage: string): AsyncGenerator<string> {
  yield JSON.stringify({ id: "chatcmpl-1", choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] });
  // Raw text: JSON.stringify could not write 1e309.
  yield `{"id":"chatcmpl-1","choices":[],"usage":${usage}}`;
  yield "[DONE]";
}

describe("a server's absurd usage numbers", () => {
  it.each([
    ['{"prompt_tokens":-5000000,"completion_tokens":10}', "usage.prompt_tokens"],
    ['{"prompt_tokens":100,"completion_tokens":1e309}', "usage.completion_tokens"],
    ['{"prompt_tokens":"lots","completion_tokens":10}', "usage.prompt_tokens"],
    ['{"prompt_tokens":100,"completion_tokens":-7,"prompt_tokens_details":{"cached_tokens":-50}}', "usage.prompt_tokens_details.cached_tokens"],
  ])("never reach the job's meter: the response fails, naming the field: %s", async (usage, field) => {
    const error = await accumulateChatCompletion(stream(usage), "gpt-4.1").then(
      (message) => new Error(`resolved with usage ${JSON.stringify(message.usage)}`),
      (rejected: unknown) => rejected,
    );
    expect(isTackleError(error, "model_api"), String(error)).toBe(true);
    expect(isTackleError(error) && error.retryable).toBe(false);
    expect((error as Error).message).toContain(field);
  });
});

let redis: { url: string; stop(): Promise<void> };
const prefix = `tackle-test-${randomUUID()}`;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await deleteKeys(redis.url, prefix);
  await redis.stop();
});

const ledgers: Array<[string, () => DailyBudget]> = [
  ["in memory", () => createDailyBudget({ logger: silentLogger })],
  ["on Redis", () => createDailyBudget({ redisUrl: redis.url, prefix, logger: silentLogger })],
];

describe.each(ledgers)("the daily ledger %s, settled with a cost that is not a sum", (_label, open) => {
  it.each([[Number.NaN], [Number.POSITIVE_INFINITY], [1e300]])("keeps refusing past the cap: %s", async (cost) => {
    const ledger = open();
    const installation = randomUUID();
    const repository = `octo/${randomUUID()}`;
    try {
      const request = (jobId: string) => ({
        jobId,
        installation,
        repository,
        caps: { installation: 10, repository: null },
        wantUsd: 5,
        now: NOON,
      });
      const first = await ledger.reserve(request("job-1"));
      if (!first.ok) throw new Error("the first job should have had its budget");
      await first.settle(cost);
      const spentBefore = (await ledger.usage({ installation, repository, now: NOON })).installation.spentUsd;
      expect(Number.isFinite(spentBefore) && spentBefore >= 0).toBe(true);
      // Two more $5 jobs: with the first one's cost counted at all, they cannot both fit in $10.
      const second = await ledger.reserve(request("job-2"));
      const third = await ledger.reserve(request("job-3"));
      expect(second.ok && third.ok).toBe(false);
    } finally {
      await ledger.close();
    }
  });
});
