import type { Redis } from "ioredis";

/**
 * Redis keys of the lane protocol, beside BullMQ's own under `<prefix>:<queue>:` (BullMQ job ids
 * cannot contain ":", so `<prefix>:<queue>:tackle:…` never names a job).
 */
export interface LaneKeys {
  /** delivery id -> job id it went to; SET NX EX. */
  dedupe(deliveryId: string): string;
  /** lane -> the BullMQ id of its pending (not yet started) job. */
  pending(lane: string): string;
  /** lane -> the BullMQ id of the job that owns the lane (running, or between retries); PX lease. */
  lease(lane: string): string;
  /** Prefix of `cancelled:<jobId>` markers, set by `/tackle stop`. */
  cancelledPrefix: string;
  cancelled(jobId: string): string;
  /** Pub/sub channel carrying the id of a job to abort. */
  channel: string;
}

export function laneKeys(prefix: string, queueName: string): LaneKeys {
  const base = `${prefix}:${queueName}:tackle`;
  return {
    dedupe: (deliveryId) => `${base}:dedupe:${deliveryId}`,
    pending: (lane) => `${base}:pending:${lane}`,
    lease: (lane) => `${base}:lease:${lane}`,
    cancelledPrefix: `${base}:cancelled:`,
    cancelled: (jobId) => `${base}:cancelled:${jobId}`,
    channel: `${base}:cancel`,
  };
}

/**
 * Writes merged data into the lane's pending job, only if it is still the pending job, not finished,
 * and its data is what the caller read (compare-and-set; BullMQ keeps job data in the job hash's
 * `data` field, as its own updateData does).
 * KEYS: pending, job hash. ARGV: job id, data read, merged data.
 */
const MERGE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'moved' end
if redis.call('EXISTS', KEYS[2]) == 0 or redis.call('HEXISTS', KEYS[2], 'finishedOn') == 1 then
  redis.call('DEL', KEYS[1])
  return 'gone'
end
if redis.call('HGET', KEYS[2], 'data') ~= ARGV[2] then return 'changed' end
redis.call('HSET', KEYS[2], 'data', ARGV[3])
return 'merged'
`;

/**
 * Takes the lane for a job about to run. Atomic with MERGE: once a job has left `pending` here, no
 * merge can reach it, and the data returned includes every merge that did.
 * KEYS: lease, pending, job hash, cancelled marker. ARGV: job id, lease ms.
 * Returns {'ok', data} | {'busy', holder} | {'cancelled', pending id or ''}.
 */
const CLAIM = `
local id = ARGV[1]
if redis.call('EXISTS', KEYS[4]) == 1 then
  if redis.call('GET', KEYS[2]) == id then redis.call('DEL', KEYS[2]) end
  if redis.call('GET', KEYS[1]) == id then redis.call('DEL', KEYS[1]) end
  return {'cancelled', redis.call('GET', KEYS[2]) or ''}
end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= id then return {'busy', holder} end
redis.call('SET', KEYS[1], id, 'PX', ARGV[2])
if redis.call('GET', KEYS[2]) == id then redis.call('DEL', KEYS[2]) end
return {'ok', redis.call('HGET', KEYS[3], 'data') or ''}
`;

/**
 * Keeps the lease alive (taking it back if it lapsed and is free) and reports a stop request.
 * KEYS: lease, cancelled marker. ARGV: job id, lease ms. Returns {held 0/1, cancelled 0/1}.
 */
const RENEW = `
local holder = redis.call('GET', KEYS[1])
local held = 0
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  held = 1
elseif not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  held = 1
end
return {held, redis.call('EXISTS', KEYS[2])}
`;

/** Frees the lane if this job holds it. KEYS: lease, pending. ARGV: job id. Returns the pending id or ''. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return redis.call('GET', KEYS[2]) or ''
`;

/**
 * `/tackle stop`: drops the pending job and marks it and the lane's holder cancelled.
 * KEYS: pending, lease. ARGV: cancelled-marker prefix, marker ttl seconds. Returns {pending, holder}.
 */
const CANCEL = `
local pending = redis.call('GET', KEYS[1])
local holder = redis.call('GET', KEYS[2])
if pending then
  redis.call('DEL', KEYS[1])
  redis.call('SET', ARGV[1] .. pending, '1', 'EX', ARGV[2])
end
if holder then redis.call('SET', ARGV[1] .. holder, '1', 'EX', ARGV[2]) end
return {pending or '', holder or ''}
`;

/**
 * 1 + jobs ahead: the lane's holder when it is another job, plus jobs ahead in BullMQ's wait list
 * (LPUSHed, taken from the right). KEYS: wait list, lease. ARGV: job id.
 */
const POSITION = `
local ahead = 0
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then ahead = 1 end
local index = redis.call('LPOS', KEYS[1], ARGV[1])
if index then ahead = ahead + redis.call('LLEN', KEYS[1]) - 1 - index end
return ahead + 1
`;

async function run(redis: Redis, script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
  return redis.eval(script, keys.length, ...keys, ...args);
}

export type MergeResult = "merged" | "moved" | "gone" | "changed";
export type ClaimResult = { kind: "ok"; data: string } | { kind: "busy"; holder: string } | { kind: "cancelled"; pendingId: string | null };

/** The lane protocol's atomic steps over one Redis connection. */
export function laneScripts(keys: LaneKeys, jobKey: (id: string) => string) {
  return {
    async merge(redis: Redis, lane: string, id: string, read: string, merged: string): Promise<MergeResult> {
      return (await run(redis, MERGE, [keys.pending(lane), jobKey(id)], [id, read, merged])) as MergeResult;
    },
    async claim(redis: Redis, lane: string, id: string, leaseMs: number): Promise<ClaimResult> {
      const keysOf = [keys.lease(lane), keys.pending(lane), jobKey(id), keys.cancelled(id)];
      const [kind, value] = (await run(redis, CLAIM, keysOf, [id, leaseMs])) as [string, string];
      if (kind === "ok") return { kind, data: value };
      if (kind === "busy") return { kind, holder: value };
      return { kind: "cancelled", pendingId: value === "" ? null : value };
    },
    async renew(redis: Redis, lane: string, id: string, leaseMs: number): Promise<{ held: boolean; cancelled: boolean }> {
      const [held, cancelled] = (await run(redis, RENEW, [keys.lease(lane), keys.cancelled(id)], [id, leaseMs])) as [number, number];
      return { held: held === 1, cancelled: cancelled === 1 };
    },
    async release(redis: Redis, lane: string, id: string): Promise<string | null> {
      const pending = (await run(redis, RELEASE, [keys.lease(lane), keys.pending(lane)], [id])) as string;
      return pending === "" ? null : pending;
    },
    async cancel(redis: Redis, lane: string, ttlSeconds: number): Promise<{ pending: string | null; holder: string | null }> {
      const [pending, holder] = (await run(redis, CANCEL, [keys.pending(lane), keys.lease(lane)], [keys.cancelledPrefix, ttlSeconds])) as [string, string];
      return { pending: pending === "" ? null : pending, holder: holder === "" ? null : holder };
    },
    async position(redis: Redis, waitList: string, lane: string, id: string): Promise<number> {
      return Number(await run(redis, POSITION, [waitList, keys.lease(lane)], [id]));
    },
  };
}

export type LaneScripts = ReturnType<typeof laneScripts>;
