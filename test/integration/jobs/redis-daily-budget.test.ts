// The daily budget on a real Redis: the shared contract across two connections (two workers), and
// the keys' layout and expiry.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createDailyBudget } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { dailyBudgetContract, NOON } from "../../unit/jobs/daily-budget-contract.js";
import { deleteKeys, startOwnRedis, testRedis } from "../queue/redis-server.js";

let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Two ledgers on their own connections, as two workers would be, under a prefix of their own. */
function pair(prefix = `tackle-test-${randomUUID()}`) {
  const open = () => createDailyBudget({ redisUrl: redis.url, prefix, logger: silentLogger });
  const ledgers = [open(), open()] as [ReturnType<typeof open>, ReturnType<typeof open>];
  return {
    prefix,
    ledgers,
    async close() {
      for (const ledger of ledgers) await ledger.close();
      await deleteKeys(redis.url, prefix);
    },
  };
}

dailyBudgetContract("redis, two connections", async () => pair());

describe("redis daily budget", () => {
  it("keeps a hash per installation and per repository and a key per hold under the day's hash tag, deleted a day after the day ends", async () => {
    const p = pair();
    const raw = new Redis(redis.url);
    try {
      const hold = await p.ledgers[0].reserve({
        jobId: "octo-widgets-7-d1",
        installation: "4242",
        repository: "Octo/Widgets",
        caps: { installation: 20, repository: 5 },
        wantUsd: 5,
        now: NOON,
      });
      expect(hold.ok).toBe(true);
      const base = `${p.prefix}:budget:{2031-01-15}`;
      expect((await raw.keys(`${p.prefix}:*`)).sort()).toEqual([`${base}:hold:octo-widgets-7-d1`, `${base}:installation:4242`, `${base}:repo:octo/widgets`]);
      expect(await raw.hgetall(`${base}:installation:4242`)).toEqual({ held: "5000000" });
      // Midnight after 2031-01-16, in unix seconds.
      const expiry = Date.UTC(2031, 0, 17) / 1000;
      for (const key of await raw.keys(`${p.prefix}:*`)) expect(await raw.expiretime(key)).toBe(expiry);
      if (hold.ok) await hold.settle(0.123456);
      expect(await raw.hgetall(`${base}:repo:octo/widgets`)).toEqual({ held: "0", spent: "123456" });
      expect(await raw.exists(`${base}:hold:octo-widgets-7-d1`)).toBe(0);
    } finally {
      raw.disconnect();
      await p.close();
    }
  });

  it("Redis down: the reservation fails as retryable (the job is tried again, never run unaccounted)", async () => {
    const own = await startOwnRedis();
    const ledger = createDailyBudget({ redisUrl: own.url, logger: silentLogger });
    try {
      await own.stop();
      const error = await ledger
        .reserve({ jobId: "j", installation: "1", repository: "o/r", caps: { installation: 1, repository: null }, wantUsd: 1, now: NOON })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isTackleError(error, "queue_unavailable")).toBe(true);
      expect(isTackleError(error) && error.retryable).toBe(true);
    } finally {
      await ledger.close();
    }
  });
});
