// What every daily-budget ledger does behind createDailyBudget: run in memory
// (test/unit/jobs/embedded-daily-budget.test.ts) and on Redis (test/integration/jobs/redis-daily-budget.test.ts).
import { describe, expect, it } from "vitest";
import type { BudgetCaps, BudgetReservation, DailyBudget } from "../../../src/jobs/index.js";

/** Two views of one ledger, as two worker processes would have. */
export interface DailyBudgetPair {
  ledgers: [DailyBudget, DailyBudget];
  close(): Promise<void>;
}

/** Noon UTC on a day in the future: keys written for it stay until the test removes them. */
export const NOON = Date.UTC(2031, 0, 15, 12, 0, 0);
const NEXT_MIDNIGHT = Date.UTC(2031, 0, 16);

const INSTALLATION = "4242";

type Held = Extract<BudgetReservation, { ok: true }>;
type Refused = Extract<BudgetReservation, { ok: false }>;

function held(reservation: BudgetReservation): Held {
  if (!reservation.ok) throw new Error(`expected a hold, got a refusal: ${JSON.stringify(reservation)}`);
  return reservation;
}

function refused(reservation: BudgetReservation): Refused {
  if (reservation.ok) throw new Error(`expected a refusal, got a hold of $${reservation.amountUsd}`);
  return reservation;
}

export function dailyBudgetContract(label: string, open: () => Promise<DailyBudgetPair>): void {
  const withPair = async (test: (pair: DailyBudgetPair) => Promise<void>): Promise<void> => {
    const pair = await open();
    try {
      await test(pair);
    } finally {
      await pair.close();
    }
  };
  let jobs = 0;
  const request = (caps: Partial<BudgetCaps>, wantUsd: number, options: { repository?: string; jobId?: string; now?: number } = {}) => ({
    jobId: options.jobId ?? `job-${++jobs}`,
    installation: INSTALLATION,
    repository: options.repository ?? "octo/widgets",
    caps: { installation: caps.installation ?? null, repository: caps.repository ?? null },
    wantUsd,
    now: options.now ?? NOON,
  });

  describe(`daily budget contract: ${label}`, () => {
    it("holds the job's wish while the cap has room, then what is left, then refuses with the usage and the next UTC midnight", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        expect(held(await a.reserve(request({ installation: 12 }, 5)))).toMatchObject({ amountUsd: 5, limitedBy: null });
        // The other process sees the first hold.
        expect(held(await b.reserve(request({ installation: 12 }, 5)))).toMatchObject({ amountUsd: 5, limitedBy: null });
        expect(held(await a.reserve(request({ installation: 12 }, 5)))).toMatchObject({ amountUsd: 2, limitedBy: "installation" });
        expect(refused(await b.reserve(request({ installation: 12 }, 5)))).toEqual({
          ok: false,
          scope: "installation",
          capUsd: 12,
          usage: { spentUsd: 0, heldUsd: 12 },
          resetsAt: NEXT_MIDNIGHT,
        });
        expect(await b.usage({ installation: INSTALLATION, repository: "octo/widgets", now: NOON })).toEqual({
          installation: { spentUsd: 0, heldUsd: 12 },
          repository: { spentUsd: 0, heldUsd: 12 },
        });
      }));

    it("settling replaces the hold with the cost, in the other process's view too; a second settle counts nothing", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        const first = held(await a.reserve(request({ installation: 10 }, 5)));
        await first.settle(1.25);
        await first.settle(1.25);
        expect((await b.usage({ installation: INSTALLATION, repository: "octo/widgets", now: NOON })).installation).toEqual({ spentUsd: 1.25, heldUsd: 0 });
        expect(held(await b.reserve(request({ installation: 10 }, 5))).amountUsd).toBe(5);
        expect(held(await b.reserve(request({ installation: 10 }, 5)))).toMatchObject({ amountUsd: 3.75, limitedBy: "installation" });
      }));

    it("a job that spends past its hold leaves the day over the cap: the next one is refused with what was spent", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        const first = held(await a.reserve(request({ installation: 0.6 }, 5)));
        expect(first).toMatchObject({ amountUsd: 0.6, limitedBy: "installation" });
        await first.settle(0.75);
        const refusal = refused(await b.reserve(request({ installation: 0.6 }, 5)));
        expect(refusal.usage).toEqual({ spentUsd: 0.75, heldUsd: 0 });
      }));

    it("less than a cent left counts as nothing left", () =>
      withPair(async ({ ledgers: [a] }) => {
        await held(await a.reserve(request({ installation: 1 }, 5))).settle(0.995);
        expect(refused(await a.reserve(request({ installation: 1 }, 5))).scope).toBe("installation");
      }));

    it("a repository's cap binds its own jobs only; the installation's binds all its repositories", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        const caps = { installation: 10, repository: 2 };
        expect(held(await a.reserve(request(caps, 5)))).toMatchObject({ amountUsd: 2, limitedBy: "repository" });
        // Another case of the same name is the same repository.
        const again = refused(await b.reserve(request(caps, 5, { repository: "Octo/Widgets" })));
        expect(again).toMatchObject({ scope: "repository", capUsd: 2, usage: { spentUsd: 0, heldUsd: 2 } });
        // Another repository of the installation has its own 2, out of the installation's 8 left.
        expect(held(await b.reserve(request(caps, 5, { repository: "octo/gadgets" })))).toMatchObject({ amountUsd: 2, limitedBy: "repository" });
        expect(held(await a.reserve(request({ installation: 10 }, 9, { repository: "octo/tools" })))).toMatchObject({
          amountUsd: 6,
          limitedBy: "installation",
        });
        // Both used up: the installation's is named (raising the repository's would not help).
        expect(refused(await a.reserve(request(caps, 5, { repository: "octo/other" })))).toMatchObject({ scope: "installation", capUsd: 10 });
      }));

    it("a repository cap with no operator cap still applies, and counts per repository", () =>
      withPair(async ({ ledgers: [a] }) => {
        expect(held(await a.reserve(request({ repository: 3 }, 5)))).toMatchObject({ amountUsd: 3, limitedBy: "repository" });
        expect(refused(await a.reserve(request({ repository: 3 }, 5)))).toMatchObject({ scope: "repository", capUsd: 3 });
      }));

    it("concurrent reservations from two processes never hold more than the cap", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).reserve(request({ installation: 5 }, 1))));
        const holds = results.filter((r): r is Held => r.ok);
        expect(holds).toHaveLength(5);
        expect(holds.every((h) => h.amountUsd === 1)).toBe(true);
        expect((await a.usage({ installation: INSTALLATION, repository: "octo/widgets", now: NOON })).installation).toEqual({ spentUsd: 0, heldUsd: 5 });
      }));

    it("a retry of the job takes over its earlier attempt's hold; the earlier attempt's late settle counts its cost only", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        const dead = held(await a.reserve(request({ installation: 10 }, 6, { jobId: "job-retried" })));
        const retry = held(await b.reserve(request({ installation: 10 }, 6, { jobId: "job-retried" })));
        expect(retry.amountUsd).toBe(6);
        const view = () => b.usage({ installation: INSTALLATION, repository: "octo/widgets", now: NOON });
        expect((await view()).installation).toEqual({ spentUsd: 0, heldUsd: 6 });
        await dead.settle(0.5);
        expect((await view()).installation).toEqual({ spentUsd: 0.5, heldUsd: 6 });
        await retry.settle(2);
        expect((await view()).installation).toEqual({ spentUsd: 2.5, heldUsd: 0 });
      }));

    it("each UTC day starts from zero; a hold never settled stops counting at midnight; a settle after midnight counts on its own day", () =>
      withPair(async ({ ledgers: [a, b] }) => {
        const lateEvening = Date.UTC(2031, 0, 15, 23, 59);
        const afterMidnight = Date.UTC(2031, 0, 16, 0, 1);
        held(await a.reserve(request({ installation: 4 }, 3, { now: lateEvening })));
        const late = held(await a.reserve(request({ installation: 4 }, 3, { now: lateEvening })));
        expect(late.amountUsd).toBe(1);
        expect(refused(await b.reserve(request({ installation: 4 }, 3, { now: lateEvening }))).resetsAt).toBe(Date.UTC(2031, 0, 16));
        const nextDay = held(await b.reserve(request({ installation: 4 }, 3, { now: afterMidnight })));
        expect(nextDay).toMatchObject({ amountUsd: 3, limitedBy: null });
        await late.settle(0.4);
        const scopes = { installation: INSTALLATION, repository: "octo/widgets" };
        expect((await a.usage({ ...scopes, now: lateEvening })).installation).toEqual({ spentUsd: 0.4, heldUsd: 3 });
        expect((await a.usage({ ...scopes, now: afterMidnight })).installation).toEqual({ spentUsd: 0, heldUsd: 3 });
      }));
  });
}
