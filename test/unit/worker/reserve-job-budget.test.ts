import { describe, expect, it } from "vitest";
import { parseRepoConfig, type RepoConfig } from "../../../src/config/index.js";
import { createEmbeddedDailyBudget } from "../../../src/jobs/index.js";
import type { JobData } from "../../../src/jobs/job-data.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { formatUtc, reserveJobBudget } from "../../../src/worker/reserve-job-budget.js";
import { renderTrackingComment } from "../../../src/worker/tracking-comment.js";

const data: JobData = {
  jobId: "octo-widgets-7-d1",
  deliveryId: "d1",
  installationId: 4242,
  repo: { owner: "octo", name: "widgets" },
  number: 7,
  isPullRequest: false,
  trigger: { kind: "issue_assigned", actor: "alice" },
  enqueuedAt: "2031-01-15T20:00:00.000Z",
};

/** 20:47:30 UTC: 3h 12m (and a half) before midnight. */
const EVENING = Date.UTC(2031, 0, 15, 20, 47, 30);

function config(yaml: string): RepoConfig {
  const parsed = parseRepoConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
  return parsed.config;
}

describe("reserveJobBudget", () => {
  it("without a ledger or without any cap, the job keeps its max_cost_usd and nothing is recorded", async () => {
    const ledger = createEmbeddedDailyBudget();
    const options = { operatorCapUsd: null, config: config("max_cost_usd: 3"), data, now: EVENING, commandName: "tackle", log: silentLogger };
    expect(await reserveJobBudget({ ...options, budget: ledger })).toMatchObject({ ok: true, maxCostUsd: 3, lowered: null });
    expect(await reserveJobBudget({ ...options, budget: undefined, operatorCapUsd: 1 })).toMatchObject({ ok: true, maxCostUsd: 3, lowered: null });
    expect(await ledger.usage({ installation: "4242", repository: "octo/widgets", now: EVENING })).toEqual({
      installation: { spentUsd: 0, heldUsd: 0 },
      repository: { spentUsd: 0, heldUsd: 0 },
    });
  });

  it("clamps the job's budget to what a cap has left, and says so", async () => {
    const ledger = createEmbeddedDailyBudget();
    const budget = await reserveJobBudget({
      budget: ledger,
      operatorCapUsd: 20,
      config: config("max_cost_usd: 5\ndaily_budget_usd: 1.5"),
      data,
      now: EVENING,
      commandName: "tackle",
      log: silentLogger,
    });
    expect(budget).toMatchObject({
      ok: true,
      maxCostUsd: 1.5,
      lowered: "its cost budget was lowered from $5.00 to $1.50, what was left of this repository's daily budget (`daily_budget_usd` in `.github/tackle.yml`)",
    });
    if (budget.ok) await budget.settle(0.5);
    expect((await ledger.usage({ installation: "4242", repository: "octo/widgets", now: EVENING })).repository).toEqual({ spentUsd: 0.5, heldUsd: 0 });
  });

  it("a repository value above the operator's: the operator's cap binds", async () => {
    const ledger = createEmbeddedDailyBudget();
    const budget = await reserveJobBudget({
      budget: ledger,
      operatorCapUsd: 2,
      config: config("daily_budget_usd: 50"),
      data,
      now: EVENING,
      commandName: "tackle",
      log: silentLogger,
    });
    expect(budget).toMatchObject({ ok: true, maxCostUsd: 2 });
    expect(budget.ok && budget.lowered).toContain("this installation's daily budget (`TACKLE_DAILY_BUDGET_USD`)");
  });

  it("refuses with the cap, what was spent and held, and the next UTC midnight; the comment ends budget_exhausted", async () => {
    const ledger = createEmbeddedDailyBudget();
    const options = { budget: ledger, operatorCapUsd: 1, config: config("max_cost_usd: 5"), now: EVENING, commandName: "tackle", log: silentLogger };
    const first = await reserveJobBudget({ ...options, config: config("max_cost_usd: 0.7"), data: { ...data, jobId: "a" } });
    if (!first.ok) throw new Error("expected a hold");
    await first.settle(0.7);
    // The second holds the last $0.30 while it runs.
    expect(await reserveJobBudget({ ...options, data: { ...data, jobId: "b" } })).toMatchObject({ ok: true, maxCostUsd: 0.3 });
    const refused = await reserveJobBudget({ ...options, data: { ...data, jobId: "c" } });
    expect(refused).toEqual({
      ok: false,
      reason:
        "this installation's daily budget (`TACKLE_DAILY_BUDGET_USD`) of $1.00 is used up ($0.70 spent, $0.30 held by running jobs, today in UTC), " +
        "so the agent did not run. It resets at 2031-01-16 00:00 UTC (in 3h 12m); comment `/tackle retry` after that.",
    });
    if (refused.ok) return;
    const body = renderTrackingComment(
      {
        phase: "budget_exhausted",
        reason: refused.reason,
        stats: { durationMs: 0, turns: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, costUsd: 0 },
      },
      "c",
      EVENING,
    );
    expect(body).toContain("⚠️ Tackle ran out of budget");
    expect(body).toContain("It resets at 2031-01-16 00:00 UTC");
  });

  it("settling is once, and a ledger that fails to settle does not fail the job", async () => {
    const failing = {
      ...createEmbeddedDailyBudget(),
      reserve: async () => ({
        ok: true as const,
        amountUsd: 1,
        limitedBy: null,
        settle: async () => {
          throw new Error("Redis is gone");
        },
      }),
    };
    const budget = await reserveJobBudget({
      budget: failing,
      operatorCapUsd: 1,
      config: config("max_cost_usd: 1"),
      data,
      now: EVENING,
      commandName: null,
      log: silentLogger,
    });
    if (!budget.ok) throw new Error("expected a hold");
    await expect(budget.settle(1)).resolves.toBeUndefined();
  });

  it("formats the reset time in UTC", () => {
    expect(formatUtc(Date.UTC(2031, 0, 16))).toBe("2031-01-16 00:00 UTC");
  });
});
