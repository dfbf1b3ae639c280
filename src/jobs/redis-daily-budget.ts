import { randomUUID } from "node:crypto";
import type { Logger } from "../logging/logger.js";
import { sleep } from "../util/sleep.js";
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
import { lazyRedis } from "./redis-connection.js";

export interface RedisDailyBudgetOptions {
  redisUrl: string;
  /** Key prefix, shared with the queue's. @defaultValue "tackle" */
  prefix?: string;
  /** Bound on one Redis command. @defaultValue 3_000 */
  operationTimeoutMs?: number;
  logger: Logger;
}

/**
 * Takes over the job's earlier hold (a retry, or a rerun after its worker died), then holds
 * min(wish, each cap's cap - spent - held) on both scopes, in one step across every worker.
 * KEYS: installation hash, repository hash, the job's hold. ARGV (integer micro-dollars): wish,
 * installation cap (-1: none), repository cap (-1: none), the least worth running, the hold's token,
 * expiry (unix seconds). Returns {1, amount, limiting scope} or {0, refusing scope, spent, held}.
 */
const RESERVE = `
local function add(key, field, amount)
  if amount ~= 0 then redis.call('HINCRBY', key, field, string.format('%d', amount)) end
end
local previous = redis.call('GET', KEYS[3])
if previous then
  local amount = tonumber(string.match(previous, ' (%d+)$')) or 0
  add(KEYS[1], 'held', -amount)
  add(KEYS[2], 'held', -amount)
  redis.call('DEL', KEYS[3])
end
local function usage(key)
  local values = redis.call('HMGET', key, 'spent', 'held')
  return tonumber(values[1]) or 0, tonumber(values[2]) or 0
end
local amount = tonumber(ARGV[1])
local scope = ''
local scopeKey = KEYS[1]
local caps = { tonumber(ARGV[2]), tonumber(ARGV[3]) }
local names = { 'installation', 'repository' }
for i = 1, 2 do
  if caps[i] >= 0 then
    local spent, held = usage(KEYS[i])
    local left = caps[i] - spent - held
    if left < amount then
      amount = left
      scope = names[i]
      scopeKey = KEYS[i]
    end
  end
end
if amount < tonumber(ARGV[4]) then
  local spent, held = usage(scopeKey)
  return { 0, scope, spent, held }
end
for i = 1, 2 do
  add(KEYS[i], 'held', amount)
  redis.call('EXPIREAT', KEYS[i], ARGV[6])
end
redis.call('SET', KEYS[3], ARGV[5] .. ' ' .. string.format('%d', amount))
redis.call('EXPIREAT', KEYS[3], ARGV[6])
return { 1, amount, scope }
`;

/**
 * Replaces the job's hold with its cost. A hold another attempt took over (other token) is not the
 * caller's to release; its cost is counted all the same.
 * KEYS: as RESERVE. ARGV: the hold's token, cost (micro-dollars), expiry (unix seconds). Returns what was released.
 */
const SETTLE = `
local function add(key, field, amount)
  if amount ~= 0 then redis.call('HINCRBY', key, field, string.format('%d', amount)) end
end
local released = 0
local hold = redis.call('GET', KEYS[3])
if hold then
  local token, amount = string.match(hold, '^(%S+) (%d+)$')
  if token == ARGV[1] then
    released = tonumber(amount)
    redis.call('DEL', KEYS[3])
  end
end
for i = 1, 2 do
  add(KEYS[i], 'held', -released)
  add(KEYS[i], 'spent', tonumber(ARGV[2]))
  redis.call('EXPIREAT', KEYS[i], ARGV[3])
end
return released
`;

/** Settling is what keeps the day's count true: it is tried again for a while before giving up. */
const SETTLE_ATTEMPTS = 4;

/**
 * The daily budget shared by every worker: per UTC day, a hash per installation and per repository
 * (`spent`, `held`, in micro-dollars) and a key per job holding its reservation, all under
 * `<prefix>:budget:{<day>}:…` (one hash tag: one slot on a cluster) and deleted a day after the day ends.
 */
export function createRedisDailyBudget(options: RedisDailyBudgetOptions): DailyBudget {
  const prefix = options.prefix ?? "tackle";
  const log = options.logger.child({ budget: "redis" });
  // Opened on first use: a process whose jobs have no cap holds no connection.
  const { run, close } = lazyRedis(options, log, "daily budget");
  const keysOf = (scopes: { installation: string; repository: string; now: number }): [string, string] => {
    const base = `${prefix}:budget:{${utcDay(scopes.now)}}`;
    return [`${base}:installation:${scopes.installation}`, `${base}:repo:${normalizeRepository(scopes.repository)}`];
  };
  const usageOf = (spent: unknown, held: unknown): BudgetUsage => ({ spentUsd: fromMicros(Number(spent ?? 0)), heldUsd: fromMicros(Number(held ?? 0)) });

  return {
    async reserve(request: BudgetRequest): Promise<BudgetReservation> {
      const keys = [...keysOf(request), `${prefix}:budget:{${utcDay(request.now)}}:hold:${request.jobId}`];
      const want = toMicros(request.wantUsd);
      const expiry = String(Math.floor(dayExpiry(request.now) / 1000));
      const token = randomUUID();
      const cap = (usd: number | null) => String(usd === null ? -1 : toMicros(usd));
      const least = String(Math.min(toMicros(LEAST_WORTH_RUNNING_USD), want));
      const reply = (await run("reserve the job's budget", (r) =>
        r.eval(RESERVE, keys.length, ...keys, String(want), cap(request.caps.installation), cap(request.caps.repository), least, token, expiry),
      )) as [number, number | string, string | number, number?];
      if (reply[0] !== 1) {
        const scope: BudgetScope = reply[1] === "repository" ? "repository" : "installation";
        return {
          ok: false,
          scope,
          capUsd: request.caps[scope] ?? 0,
          usage: usageOf(reply[2], reply[3]),
          resetsAt: nextUtcMidnight(request.now),
        };
      }
      let settled = false;
      const amount = Number(reply[1]);
      return {
        ok: true,
        amountUsd: fromMicros(amount),
        limitedBy: reply[2] === "installation" || reply[2] === "repository" ? reply[2] : null,
        async settle(costUsd) {
          if (settled) return;
          settled = true;
          for (let attempt = 1; ; attempt++) {
            try {
              await run("settle the job's budget", (r) => r.eval(SETTLE, keys.length, ...keys, token, String(settledMicros(costUsd, amount)), expiry));
              return;
            } catch (error) {
              if (attempt >= SETTLE_ATTEMPTS) throw error;
              log.warn({ err: error, attempt }, "could not settle the job's budget; trying again");
              await sleep(500 * 2 ** (attempt - 1));
            }
          }
        },
      };
    },

    async usage(scopes) {
      const [installation, repository] = keysOf(scopes);
      const [inst, repo] = await run("read the daily budget", (r) =>
        Promise.all([r.hmget(installation, "spent", "held"), r.hmget(repository, "spent", "held")]),
      );
      return { installation: usageOf(inst[0], inst[1]), repository: usageOf(repo[0], repo[1]) };
    },

    async close() {
      close();
    },
  };
}
