import type { Redis } from "ioredis";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { safeArtifactName } from "../util/safe-artifact-name.js";
import {
  ARTIFACT_ID,
  CUT_LINE,
  JOB_STORE_LIMITS,
  jobFull,
  tooLarge,
  type ArtifactMeta,
  type JobRecord,
  type JobStore,
  type JobStoreLimits,
  type StoredJob,
} from "./job-store.js";
import { connectRedis, lazyRedis } from "./redis-connection.js";

export interface RedisJobStoreOptions {
  redisUrl: string;
  /** Key prefix, shared with the queue's. @defaultValue "tackle" */
  prefix?: string;
  /** @defaultValue JOB_STORE_LIMITS */
  limits?: Partial<JobStoreLimits>;
  /** Bound on one Redis command. @defaultValue 3_000 */
  operationTimeoutMs?: number;
  /** @defaultValue Date.now */
  clock?: () => number;
  logger: Logger;
}

/**
 * Shared by the scripts: drops one job's transcript and artifacts and gives their bytes back.
 * ARGV[1] is always the key prefix (`<prefix>:jobstore:`).
 */
const DROP = `
local function drop(p, id, why)
  redis.call('DEL', p..'lines:'..id)
  for _, aid in ipairs(redis.call('HKEYS', p..'arts:'..id)) do redis.call('DEL', p..'art:'..id..':'..aid) end
  redis.call('DEL', p..'arts:'..id)
  local size = tonumber(redis.call('HGET', p..'size', id) or '0')
  if size > 0 then redis.call('DECRBY', p..'total', size) end
  redis.call('HDEL', p..'size', id)
  redis.call('ZREM', p..'held', id)
  if why ~= nil and redis.call('EXISTS', p..'job:'..id) == 1 then redis.call('HSET', p..'job:'..id, 'cut', why) end
end
-- Makes room for n more bytes by dropping the oldest other jobs' contents; false when it cannot.
local function room(p, self, n, maxTotal)
  while tonumber(redis.call('GET', p..'total') or '0') + n > maxTotal do
    local oldest = redis.call('ZRANGE', p..'held', 0, 1)
    local victim = oldest[1]
    if victim == self then victim = oldest[2] end
    if victim == nil then return false end
    drop(p, victim, 'dropped')
  end
  return true
end
-- Counts n bytes as this job's.
local function hold(p, id, n, now)
  redis.call('INCRBY', p..'total', n)
  redis.call('HINCRBY', p..'size', id, n)
  redis.call('ZADD', p..'held', 'NX', now, id)
end
`;

/**
 * Merges a record update and prunes what is past retention or past the job count.
 * ARGV: prefix, jobId, update JSON, score (enqueue ms; 0 = keep), now, retentionMs, maxJobs.
 */
const RECORD = `${DROP}
local p, id = ARGV[1], ARGV[2]
local key = p..'job:'..id
local current = redis.call('HGET', key, 'r')
local record = current and cjson.decode(current) or {}
for k, v in pairs(cjson.decode(ARGV[3])) do record[k] = v end
-- The webhook side records a job without a status: whatever a worker already wrote stays.
if record.status == nil then record.status = 'queued' end
redis.call('HSET', key, 'r', cjson.encode(record))
redis.call('PEXPIRE', key, ARGV[6])
local score = tonumber(ARGV[4])
if score > 0 or redis.call('ZSCORE', p..'jobs', id) == false then
  redis.call('ZADD', p..'jobs', score > 0 and score or tonumber(ARGV[5]), id)
end
local old = redis.call('ZRANGEBYSCORE', p..'jobs', '-inf', tonumber(ARGV[5]) - tonumber(ARGV[6]), 'LIMIT', 0, 100)
local excess = redis.call('ZCARD', p..'jobs') - tonumber(ARGV[7])
if excess > 0 then
  for _, gone in ipairs(redis.call('ZRANGE', p..'jobs', 0, math.min(excess, 100) - 1)) do table.insert(old, gone) end
end
for _, gone in ipairs(old) do
  if gone ~= id then
    drop(p, gone, nil)
    redis.call('ZREM', p..'jobs', gone)
    redis.call('DEL', p..'job:'..gone)
  end
end
return 1
`;

/**
 * Appends transcript lines within the per-job cap and the total cap. ARGV: prefix, jobId, maxJob,
 * maxTotal, ttlMs, now, cut line, line… Returns the number of lines kept.
 */
const APPEND = `${DROP}
local p, id = ARGV[1], ARGV[2]
local key, lines = p..'job:'..id, p..'lines:'..id
if redis.call('HEXISTS', key, 'cut') == 1 then return 0 end
local used = tonumber(redis.call('HGET', key, 'tb') or '0')
local maxJob, maxTotal, now = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[6])
local kept = 0
for i = 8, #ARGV do
  local n = #ARGV[i]
  if used + n > maxJob then
    redis.call('RPUSH', lines, ARGV[7])
    redis.call('HSET', key, 'cut', 'cap')
    break
  end
  if not room(p, id, n, maxTotal) then
    redis.call('HSET', key, 'cut', 'full')
    break
  end
  redis.call('RPUSH', lines, ARGV[i])
  hold(p, id, n, now)
  used = used + n
  kept = kept + 1
end
redis.call('HSET', key, 'tb', used)
redis.call('PEXPIRE', key, ARGV[5])
redis.call('PEXPIRE', lines, ARGV[5])
return kept
`;

/**
 * Stores one artifact within the job's and the total cap, numbering it. ARGV: prefix, jobId,
 * maxJobArtifacts, maxTotal, ttlMs, now, meta JSON (without id), content, overhead. Returns the id, or
 * 'job_full' / 'store_full'. An artifact costs its content, its metadata and its keys' overhead.
 */
const PUT_ARTIFACT = `${DROP}
local p, id = ARGV[1], ARGV[2]
local key = p..'job:'..id
local n = #ARGV[8] + #ARGV[7] + tonumber(ARGV[9])
local used = tonumber(redis.call('HGET', key, 'ab') or '0')
if used + n > tonumber(ARGV[3]) then return 'job_full' end
if not room(p, id, n, tonumber(ARGV[4])) then return 'store_full' end
local aid = 'a'..redis.call('HINCRBY', key, 'n', 1)
local meta = cjson.decode(ARGV[7])
meta.id = aid
redis.call('HSET', p..'arts:'..id, aid, cjson.encode(meta))
redis.call('SET', p..'art:'..id..':'..aid, ARGV[8], 'PX', ARGV[5])
redis.call('HSET', key, 'ab', used + n)
hold(p, id, n, tonumber(ARGV[6]))
redis.call('PEXPIRE', key, ARGV[5])
redis.call('PEXPIRE', p..'arts:'..id, ARGV[5])
return aid
`;

/**
 * What Redis spends on an artifact beyond its content and metadata (its own key with a TTL, a hash
 * field): counted against the caps, so empty files uploaded again and again reach them too.
 */
const ARTIFACT_OVERHEAD_BYTES = 256;

/**
 * The job store in Redis, where BullMQ's queue lives (`noeviction`): every byte it adds is counted
 * against `maxTotalBytes`, and past it the oldest jobs' transcripts and artifacts are dropped (their
 * records stay, marked), so the store can never fill Redis and make enqueues fail. Keys, under
 * `<prefix>:jobstore:`: `jobs` (zset of ids by enqueue time), `job:<id>` (hash: the record, the cut
 * mark, byte counts), `lines:<id>` (list), `arts:<id>` (hash of metadata), `art:<id>:<aid>`,
 * `size` and `held` (bytes and first write per job), `total`; changes are announced on
 * `events:<id>`. Per-job keys expire after `retentionMs`.
 */
export function createRedisJobStore(options: RedisJobStoreOptions): JobStore {
  const p = `${options.prefix ?? "tackle"}:jobstore:`;
  const limits: JobStoreLimits = { ...JOB_STORE_LIMITS, ...(options.limits ?? {}) };
  const clock = options.clock ?? Date.now;
  const log = options.logger.child({ jobStore: "redis" });
  const connection = lazyRedis(options, log, "job store");
  const run = connection.run;
  let subscriber: Redis | undefined;
  const watchers = new Map<string, Set<() => void>>();
  const announce = (jobId: string): Promise<unknown> => run("announce a job change", (r) => r.publish(`${p}events:${jobId}`, "1"));

  const subscribe = (): Redis => {
    if (subscriber) return subscriber;
    const sub = connectRedis(options.redisUrl, log, "job store events", { maxRetriesPerRequest: null });
    sub.on("message", (channel: string) => {
      for (const onChange of watchers.get(channel.slice(`${p}events:`.length)) ?? []) onChange();
    });
    subscriber = sub;
    return sub;
  };

  return {
    kind: "redis",

    async record(update) {
      const score = update.enqueuedAt === undefined ? 0 : Date.parse(update.enqueuedAt) || clock();
      await run("record a job", (r) =>
        r.eval(RECORD, 0, p, update.jobId, JSON.stringify(update), String(score), String(clock()), String(limits.retentionMs), String(limits.maxJobs)),
      );
      await announce(update.jobId);
    },

    async get(jobId) {
      const [fields, arts] = await run("read a job", async (r) => Promise.all([r.hgetall(`${p}job:${jobId}`), r.hvals(`${p}arts:${jobId}`)]));
      const record = parseRecord(fields.r);
      if (record === null) return null;
      const artifacts = arts.flatMap((json) => parseArtifact(json));
      artifacts.sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)));
      return { ...record, artifacts, transcriptCut: fields.cut !== undefined } satisfies StoredJob;
    },

    async list(limit) {
      return run("list jobs", async (r) => {
        const ids = await r.zrevrange(`${p}jobs`, 0, Math.max(0, limit - 1));
        if (ids.length === 0) return [];
        const pipeline = r.pipeline();
        for (const id of ids) pipeline.hget(`${p}job:${id}`, "r");
        const replies = (await pipeline.exec()) ?? [];
        return replies.flatMap(([, json]) => {
          const record = parseRecord(json as string | null | undefined);
          return record === null ? [] : [record];
        });
      });
    },

    async appendTranscript(jobId, lines) {
      if (lines.length === 0) return;
      await run("store transcript lines", (r) =>
        r.eval(
          APPEND,
          0,
          p,
          jobId,
          String(limits.maxTranscriptBytes),
          String(limits.maxTotalBytes),
          String(limits.retentionMs),
          String(clock()),
          CUT_LINE,
          ...lines,
        ),
      );
      await announce(jobId);
    },

    async readTranscript(jobId, cursor, maxBytes = limits.maxTranscriptBytes + CUT_LINE.length) {
      const lines: string[] = [];
      let bytes = 0;
      let next = Math.max(0, Math.floor(cursor));
      for (;;) {
        const batch = await run("read a transcript", (r) => r.lrange(`${p}lines:${jobId}`, next, next + 499));
        for (const line of batch) {
          bytes += Buffer.byteLength(line);
          if (bytes > maxBytes && lines.length > 0) return { lines, cursor: next };
          lines.push(line);
          next++;
        }
        if (batch.length < 500) return { lines, cursor: next };
      }
    },

    async putArtifact(jobId, artifact) {
      if (artifact.content.length > limits.maxArtifactBytes) throw tooLarge(artifact.content.length, limits);
      const meta: Omit<ArtifactMeta, "id"> = {
        name: safeArtifactName(artifact.name),
        ...(artifact.description === undefined ? {} : { description: artifact.description }),
        bytes: artifact.content.length,
        contentType: artifact.contentType,
        createdAt: new Date(clock()).toISOString(),
      };
      const id = await run("store an artifact", (r) =>
        r.eval(
          PUT_ARTIFACT,
          0,
          p,
          jobId,
          String(limits.maxJobArtifactBytes),
          String(limits.maxTotalBytes),
          String(limits.retentionMs),
          String(clock()),
          JSON.stringify(meta),
          artifact.content,
          String(ARTIFACT_OVERHEAD_BYTES),
        ),
      );
      if (id === "job_full") throw jobFull(limits);
      if (id === "store_full") throw new TackleError("invalid_input", "the artifact store is full; upload nothing more in this job");
      await announce(jobId);
      return { id: String(id), ...meta };
    },

    async readArtifact(jobId, artifactId) {
      if (!ARTIFACT_ID.test(artifactId)) return null;
      const [json, content] = await run("read an artifact", (r) =>
        Promise.all([r.hget(`${p}arts:${jobId}`, artifactId), r.getBuffer(`${p}art:${jobId}:${artifactId}`)]),
      );
      const meta = json === null ? [] : parseArtifact(json);
      return meta[0] === undefined || content === null ? null : { meta: meta[0], content };
    },

    watch(jobId, onChange) {
      const channel = `${p}events:${jobId}`;
      let set = watchers.get(jobId);
      if (set === undefined) {
        set = new Set();
        watchers.set(jobId, set);
        subscribe()
          .subscribe(channel)
          .catch((error: unknown) => log.warn({ err: error }, "could not subscribe to a job's changes"));
      }
      set.add(onChange);
      return () => {
        set.delete(onChange);
        if (set.size > 0 || watchers.get(jobId) !== set) return;
        watchers.delete(jobId);
        subscriber?.unsubscribe(channel).catch(() => undefined);
      };
    },

    async close() {
      connection.close();
      watchers.clear();
      subscriber?.disconnect();
    },
  };
}

function parseRecord(json: string | null | undefined): JobRecord | null {
  if (typeof json !== "string") return null;
  try {
    const value = JSON.parse(json) as JobRecord;
    return typeof value.jobId === "string" && typeof value.status === "string" ? value : null;
  } catch {
    return null;
  }
}

function parseArtifact(json: string): ArtifactMeta[] {
  try {
    const value = JSON.parse(json) as ArtifactMeta;
    return typeof value.id === "string" && ARTIFACT_ID.test(value.id) && typeof value.name === "string" ? [value] : [];
  } catch {
    return [];
  }
}
