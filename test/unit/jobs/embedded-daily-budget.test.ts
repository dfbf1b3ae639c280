import { describe, expect, it } from "vitest";
import { createDailyBudget, createEmbeddedDailyBudget } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { dailyBudgetContract, NOON } from "./daily-budget-contract.js";

// In memory, the server that runs every job holds one ledger: both "processes" are the same object.
dailyBudgetContract("in-process", async () => {
  const ledger = createEmbeddedDailyBudget();
  return { ledgers: [ledger, ledger], close: () => ledger.close() };
});

describe("embedded daily budget", () => {
  it("is what createDailyBudget gives without REDIS_URL, and opens no connection", async () => {
    const ledger = createDailyBudget({ redisUrl: null, logger: silentLogger });
    const hold = await ledger.reserve({
      jobId: "j",
      installation: "1",
      repository: "o/r",
      caps: { installation: 1, repository: null },
      wantUsd: 5,
      now: NOON,
    });
    expect(hold).toMatchObject({ ok: true, amountUsd: 1, limitedBy: "installation" });
    await ledger.close();
  });

  it("forgets a day a day after it ends", async () => {
    const ledger = createEmbeddedDailyBudget();
    const request = { jobId: "j", installation: "1", repository: "o/r", caps: { installation: 1, repository: null }, wantUsd: 1, now: NOON };
    await ledger.reserve(request);
    const twoDaysLater = NOON + 2 * 86_400_000;
    await ledger.reserve({ ...request, jobId: "k", now: twoDaysLater });
    expect(await ledger.usage({ installation: "1", repository: "o/r", now: NOON })).toEqual({
      installation: { spentUsd: 0, heldUsd: 0 },
      repository: { spentUsd: 0, heldUsd: 0 },
    });
  });
});
