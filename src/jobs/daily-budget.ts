/**
 * What each installation and each repository may spend on models per UTC day, shared by every
 * process that runs jobs (Redis), or by the one process that runs them all (in memory). A job
 * reserves what it may spend before its agent starts and settles with what it spent when it ends;
 * what running jobs hold counts as spent until then, so two workers starting at once cannot both
 * take the last dollars.
 */
export type BudgetScope = "installation" | "repository";

/** Daily caps in USD; null: no cap for that scope. */
export interface BudgetCaps {
  installation: number | null;
  repository: number | null;
}

export interface BudgetRequest {
  /** The job (a retry of it takes over the hold an earlier attempt left behind). */
  jobId: string;
  /** The GitHub App installation the job runs for (its id, or another stable name). */
  installation: string;
  /** `owner/name`, matched without regard to case. */
  repository: string;
  caps: BudgetCaps;
  /** What the job would spend at most (its `max_cost_usd`). */
  wantUsd: number;
  /** Epoch milliseconds: which UTC day the reservation counts against. */
  now: number;
}

/** What one scope has used on one UTC day. */
export interface BudgetUsage {
  spentUsd: number;
  /** Held by jobs that have not settled yet. */
  heldUsd: number;
}

export type BudgetReservation =
  | {
      ok: true;
      /** What the job may spend: its wish, or less when a cap left less. */
      amountUsd: number;
      /** The cap that made the amount smaller than the wish; null when none did. */
      limitedBy: BudgetScope | null;
      /**
       * Replaces the hold with what the job really spent (counted on the reservation's day). Settling
       * twice counts once; a hold never settled (a worker that died) lapses with its day.
       */
      settle(costUsd: number): Promise<void>;
    }
  | {
      ok: false;
      /** The cap that has nothing left. */
      scope: BudgetScope;
      capUsd: number;
      usage: BudgetUsage;
      /** Epoch milliseconds of the next UTC midnight, when a new day's budget starts. */
      resetsAt: number;
    };

export interface DailyBudget {
  /** Holds min(wish, what each cap has left), atomically; refuses when less than a cent is left. */
  reserve(request: BudgetRequest): Promise<BudgetReservation>;
  /** What each scope has used on the UTC day of `now`. */
  usage(scopes: { installation: string; repository: string; now: number }): Promise<Record<BudgetScope, BudgetUsage>>;
  close(): Promise<void>;
}

/** Below this, a job could not make one model call: the cap counts as reached. */
export const LEAST_WORTH_RUNNING_USD = 0.01;

const DAY_MS = 86_400_000;

/** `2025-06-01`: the UTC day of `now`, part of every key, so each day starts from zero. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The next UTC midnight after `now`, in epoch milliseconds. */
export function nextUtcMidnight(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/**
 * When a day's counters are deleted: a day after the day ends, so a job that started before midnight
 * still settles into them, while a hold left by a dead worker stops counting at midnight (the next
 * day reads new keys).
 */
export function dayExpiry(now: number): number {
  return nextUtcMidnight(now) + DAY_MS;
}

/**
 * Amounts are kept as integer micro-dollars: Redis adds integers exactly. At most 2^53 - 1, so the
 * settle script never formats what is not an integer (`%d` of inf or nan is INT64_MIN there).
 */
export function toMicros(usd: number): number {
  if (Number.isNaN(usd)) return 0;
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.round(usd * 1_000_000)));
}

/** What settling counts as spent, in micro-dollars: a cost that is not a number counts as all the job held. */
export function settledMicros(costUsd: number, heldMicros: number): number {
  return Number.isNaN(costUsd) ? heldMicros : toMicros(costUsd);
}

export function fromMicros(micros: number): number {
  return micros / 1_000_000;
}

/** Case does not make another repository. */
export function normalizeRepository(repository: string): string {
  return repository.toLowerCase();
}
