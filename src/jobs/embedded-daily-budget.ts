import { randomUUID } from "node:crypto";
import {
  dayExpiry,
  fromMicros,
  LEAST_WORTH_RUNNING_USD,
  nextUtcMidnight,
  normalizeRepository,
  settledMicros,
  toMicros,
  utcDay,
  type BudgetRequest,
  type BudgetReservation,
  type BudgetScope,
  type BudgetUsage,
  type DailyBudget,
} from "./daily-budget.js";

interface Counter {
  spent: number;
  held: number;
  expiresAt: number;
}

interface Hold {
  token: string;
  amount: number;
  expiresAt: number;
}

/**
 * The daily budget of a process that runs every job itself (no Redis): the same rules as the Redis
 * ledger, in maps keyed like its keys. JavaScript runs one reservation to its end before the next,
 * so each is atomic as written.
 */
export function createEmbeddedDailyBudget(): DailyBudget {
  const counters = new Map<string, Counter>();
  const holds = new Map<string, Hold>();

  const prune = (now: number): void => {
    for (const [key, counter] of counters) if (counter.expiresAt <= now) counters.delete(key);
    for (const [key, hold] of holds) if (hold.expiresAt <= now) holds.delete(key);
  };
  const keysOf = (scopes: { installation: string; repository: string; now: number }) => {
    const day = utcDay(scopes.now);
    return {
      installation: `${day}:installation:${scopes.installation}`,
      repository: `${day}:repo:${normalizeRepository(scopes.repository)}`,
    };
  };
  const counter = (key: string, expiresAt: number): Counter => {
    let found = counters.get(key);
    if (found === undefined) {
      found = { spent: 0, held: 0, expiresAt };
      counters.set(key, found);
    }
    return found;
  };
  const usageOf = (key: string): BudgetUsage => {
    const found = counters.get(key);
    return { spentUsd: fromMicros(found?.spent ?? 0), heldUsd: fromMicros(found?.held ?? 0) };
  };

  return {
    async reserve(request: BudgetRequest): Promise<BudgetReservation> {
      prune(request.now);
      const keys = keysOf(request);
      const holdKey = `${utcDay(request.now)}:hold:${request.jobId}`;
      const expiresAt = dayExpiry(request.now);
      const scoped = { installation: counter(keys.installation, expiresAt), repository: counter(keys.repository, expiresAt) };
      // A retry of the job takes over what its earlier attempt still holds.
      const previous = holds.get(holdKey);
      if (previous !== undefined) {
        scoped.installation.held -= previous.amount;
        scoped.repository.held -= previous.amount;
        holds.delete(holdKey);
      }
      const want = toMicros(request.wantUsd);
      let amount = want;
      let limitedBy: BudgetScope | null = null;
      for (const scope of ["installation", "repository"] as const) {
        const cap = request.caps[scope];
        if (cap === null) continue;
        const left = toMicros(cap) - scoped[scope].spent - scoped[scope].held;
        if (left < amount) {
          amount = left;
          limitedBy = scope;
        }
      }
      if (amount < Math.min(toMicros(LEAST_WORTH_RUNNING_USD), want)) {
        const scope = limitedBy ?? "installation";
        return {
          ok: false,
          scope,
          capUsd: request.caps[scope] ?? 0,
          usage: usageOf(keys[scope]),
          resetsAt: nextUtcMidnight(request.now),
        };
      }
      const token = randomUUID();
      scoped.installation.held += amount;
      scoped.repository.held += amount;
      holds.set(holdKey, { token, amount, expiresAt });
      let settled = false;
      return {
        ok: true,
        amountUsd: fromMicros(amount),
        limitedBy,
        async settle(costUsd) {
          if (settled) return;
          settled = true;
          const hold = holds.get(holdKey);
          const held = hold?.token === token ? hold.amount : 0;
          if (held > 0) holds.delete(holdKey);
          // Counted on the reservation's day, as the Redis ledger does; pruned counters come back for it.
          for (const key of [keys.installation, keys.repository]) {
            const entry = counter(key, expiresAt);
            entry.held -= held;
            entry.spent += settledMicros(costUsd, amount);
          }
        },
      };
    },

    async usage(scopes) {
      const keys = keysOf(scopes);
      return { installation: usageOf(keys.installation), repository: usageOf(keys.repository) };
    },

    async close() {},
  };
}
