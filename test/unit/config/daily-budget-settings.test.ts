// TACKLE_DAILY_BUDGET_USD and a repository's daily_budget_usd, as the loaders read them.
import { describe, expect, it } from "vitest";
import { parseEnv, parseRepoConfig } from "../../../src/config/index.js";

describe("TACKLE_DAILY_BUDGET_USD", () => {
  it("is a positive number of dollars; unset or empty means no cap", () => {
    const env = (value: string | undefined) => parseEnv({ TACKLE_DAILY_BUDGET_USD: value }, { mode: "local" });
    expect(env("20")).toMatchObject({ ok: true, env: { dailyBudgetUsd: 20 } });
    expect(env(" 7.50 ")).toMatchObject({ ok: true, env: { dailyBudgetUsd: 7.5 } });
    expect(env(undefined)).toMatchObject({ ok: true, env: { dailyBudgetUsd: null } });
    expect(env("")).toMatchObject({ ok: true, env: { dailyBudgetUsd: null } });
  });

  it("names a bad value", () => {
    for (const value of ["0", "-5", "$20", "20 USD", "1e3"]) {
      expect(parseEnv({ TACKLE_DAILY_BUDGET_USD: value }, { mode: "local" })).toEqual({
        ok: false,
        problems: [`\`TACKLE_DAILY_BUDGET_USD\`: expected a positive number of US dollars (at most 1000000), such as 20 or 7.50, got "${value}"`],
      });
    }
  });
});

describe("daily_budget_usd", () => {
  it("is optional and a positive number", () => {
    const parsed = parseRepoConfig("daily_budget_usd: 2.5\n");
    expect(parsed.ok && parsed.config.daily_budget_usd).toBe(2.5);
    const none = parseRepoConfig(null);
    expect(none.ok && none.config.daily_budget_usd).toBeUndefined();
    expect(parseRepoConfig("daily_budget_usd: 0\n")).toMatchObject({ ok: false, problems: [expect.stringContaining("`daily_budget_usd`")] });
    expect(parseRepoConfig("daily_budget_usd: lots\n")).toEqual({
      ok: false,
      problems: ['`daily_budget_usd`: expected a positive number of dollars, got "lots" (line 1)'],
    });
  });
});
