import { REPO_CONFIG_PATH, type RepoConfig } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import type { BudgetReservation, BudgetScope, DailyBudget } from "../jobs/daily-budget.js";
import type { JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";

/** A job's share of the daily budgets: what it may spend, and how it gives back what it did not. */
export interface HeldBudget {
  ok: true;
  /** The job's cost budget: `max_cost_usd`, or less when a daily cap had less left. */
  maxCostUsd: number;
  /** Why `maxCostUsd` is below `max_cost_usd`, for the final comment; null when it is not. */
  lowered: string | null;
  /** Counts what the job spent in place of its hold; once, never throws. */
  settle(costUsd: number): Promise<void>;
}

/** A held budget, or why the job may not run (a daily cap has nothing left). */
export type JobBudget = HeldBudget | { ok: false; reason: string };

const SCOPE_NAMES: Record<BudgetScope, string> = {
  installation: "this installation's daily budget (`TACKLE_DAILY_BUDGET_USD`)",
  repository: `this repository's daily budget (\`daily_budget_usd\` in \`${REPO_CONFIG_PATH}\`)`,
};

/**
 * Reserves the job's budget against the operator's daily cap per installation and the repository's
 * own, before the agent starts. Without a ledger (the Action, local runs) or without either cap the
 * job keeps its `max_cost_usd` and nothing is recorded. Redis not answering throws (retryable): a
 * job never runs unaccounted while a cap is set.
 */
export async function reserveJobBudget(options: {
  budget: DailyBudget | undefined;
  /** TACKLE_DAILY_BUDGET_USD; null when unset. */
  operatorCapUsd: number | null;
  config: RepoConfig;
  data: JobData;
  now: number;
  commandName: string | null;
  log: Logger;
}): Promise<JobBudget> {
  const { budget, config, data, log } = options;
  const caps = { installation: options.operatorCapUsd, repository: config.daily_budget_usd ?? null };
  const unlimited: JobBudget = { ok: true, maxCostUsd: config.max_cost_usd, lowered: null, settle: async () => undefined };
  if (budget === undefined || (caps.installation === null && caps.repository === null)) return unlimited;
  if (caps.installation !== null && caps.repository !== null && caps.repository > caps.installation) {
    // Documented: a repository can only lower the operator's cap; both apply, so the lower one binds.
    log.info(
      { repositoryCapUsd: caps.repository, installationCapUsd: caps.installation },
      "daily_budget_usd is above TACKLE_DAILY_BUDGET_USD; the operator's cap binds",
    );
  }
  const reservation = await budget.reserve({
    jobId: data.jobId,
    installation: String(data.installationId ?? "none"),
    repository: `${data.repo.owner}/${data.repo.name}`,
    caps,
    wantUsd: config.max_cost_usd,
    now: options.now,
  });
  if (!reservation.ok) {
    log.info({ scope: reservation.scope, capUsd: reservation.capUsd, ...reservation.usage }, "daily budget used up; the job does not run");
    return { ok: false, reason: describeRefusal(reservation, options.now, options.commandName) };
  }
  log.info({ reservedUsd: reservation.amountUsd, limitedBy: reservation.limitedBy }, "daily budget reserved");
  let settled = false;
  return {
    ok: true,
    maxCostUsd: reservation.amountUsd,
    lowered:
      reservation.limitedBy === null
        ? null
        : `its cost budget was lowered from $${usd(config.max_cost_usd)} to $${usd(reservation.amountUsd)}, what was left of ${SCOPE_NAMES[reservation.limitedBy]}`,
    async settle(costUsd) {
      if (settled) return;
      settled = true;
      try {
        await reservation.settle(costUsd);
      } catch (error) {
        // The hold lapses at the end of its UTC day; until then it counts as spent.
        log.error({ err: errorMessage(error), costUsd }, "could not settle the job's daily budget");
      }
    },
  };
}

/** "this installation's daily budget (…) of $20.00 is used up ($19.40 spent, $0.60 held by running jobs, today in UTC); it resets at …". */
function describeRefusal(refusal: Extract<BudgetReservation, { ok: false }>, now: number, commandName: string | null): string {
  const { spentUsd, heldUsd } = refusal.usage;
  const used = `$${usd(spentUsd)} spent${heldUsd > 0 ? `, $${usd(heldUsd)} held by running jobs` : ""}, today in UTC`;
  const retry = commandName === null ? "" : `; comment \`/${commandName} retry\` after that`;
  return (
    `${SCOPE_NAMES[refusal.scope]} of $${usd(refusal.capUsd)} is used up (${used}), so the agent did not run. ` +
    `It resets at ${formatUtc(refusal.resetsAt)} (in ${formatWait(refusal.resetsAt - now)})${retry}.`
  );
}

function usd(amount: number): string {
  return amount.toFixed(2);
}

/** "2025-06-02 00:00 UTC". */
export function formatUtc(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "3h 12m", "45m", "under a minute". */
function formatWait(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "under a minute";
  const hours = Math.floor(minutes / 60);
  return hours === 0 ? `${minutes}m` : `${hours}h ${minutes % 60}m`;
}
