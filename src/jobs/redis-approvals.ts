import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { connectRedis, redisUnavailable } from "./redis-connection.js";
import { answeredOutcome, type ApprovalOutcome, type ApprovalReply, type Approvals, type WaitOptions } from "./approvals.js";

export interface RedisApprovalsOptions {
  redisUrl: string;
  /** Key prefix, shared with the queue's. @defaultValue "tackle" */
  prefix?: string;
  /** How often a waiter reads its question, in case a published answer was missed (a reconnect). @defaultValue 2_000 */
  pollMs?: number;
  /** Bound on one Redis command. @defaultValue 3_000 */
  operationTimeoutMs?: number;
  logger: Logger;
}

/**
 * Replaces the lane's question with a new one that lapses at its deadline.
 * KEYS: question hash. ARGV: id, job id, summary, deadline, ttl ms.
 */
const ASK = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'jobId', ARGV[2], 'summary', ARGV[3], 'deadline', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/**
 * The first answer to a pending question wins; it is written into the question (keeping its TTL) and
 * announced. KEYS: question hash. ARGV: approved (1/0), by, text, channel, lane.
 * Returns the question's id, or nil when nothing is pending.
 */
const ANSWER = `
local id = redis.call('HGET', KEYS[1], 'id')
if not id then return false end
if redis.call('HEXISTS', KEYS[1], 'approved') == 1 then return false end
redis.call('HSET', KEYS[1], 'approved', ARGV[1], 'by', ARGV[2], 'text', ARGV[3])
redis.call('PUBLISH', ARGV[4], cjson.encode({ lane = ARGV[5], id = id }))
return id
`;

/** Deletes the question only if it is still the one named. KEYS: question hash. ARGV: id. */
const CLEAR = `
if redis.call('HGET', KEYS[1], 'id') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Approvals across processes: the job waits in a `tackle worker` while `/tackle approve` reaches the
 * server. The question is a hash whose TTL is its deadline, so one left by a worker that died lapses
 * on its own; an answer is written into it and published, and the waiter, subscribed to the channel,
 * also reads the hash every `pollMs` in case the message was lost.
 */
export function createRedisApprovals(options: RedisApprovalsOptions): Approvals {
  const prefix = options.prefix ?? "tackle";
  const pollMs = options.pollMs ?? 2_000;
  const operationTimeoutMs = options.operationTimeoutMs ?? 3_000;
  const log = options.logger.child({ approvals: "redis" });
  const channel = `${prefix}:approvals:answered`;
  const questionKey = (lane: string): string => `${prefix}:approvals:question:${lane}`;
  /** Waiters by `lane \n id`, each re-reading its question when woken. */
  const waiters = new Map<string, Set<() => void>>();
  const aborters = new Set<() => void>();
  let client: Redis | undefined;
  let subscriber: Redis | undefined;
  let subscribed: Promise<void> | undefined;
  let closed = false;

  // Connections open on first use: a process that never asks nor answers holds none.
  const redis = (): Redis => {
    if (closed) throw new Error("the approvals store is closed");
    if (client === undefined) {
      client = connectRedis(options.redisUrl, log, "approvals", { maxRetriesPerRequest: 1, commandTimeout: operationTimeoutMs });
    }
    return client;
  };

  const subscribe = (): Promise<void> => {
    if (subscribed) return subscribed;
    subscriber = connectRedis(options.redisUrl, log, "approvals subscriber", { maxRetriesPerRequest: null });
    subscriber.on("message", (_channel: string, message: string) => {
      try {
        const { lane, id } = JSON.parse(message) as { lane: string; id: string };
        for (const wake of [...(waiters.get(`${lane}\n${id}`) ?? [])]) wake();
      } catch {
        log.warn({ message }, "unreadable approval message");
      }
    });
    subscribed = subscriber.subscribe(channel).then(
      () => undefined,
      (error: unknown) => {
        subscribed = undefined;
        throw error;
      },
    );
    return subscribed;
  };

  const run = async <T>(what: string, operation: (redis: Redis) => Promise<T>): Promise<T> => {
    try {
      return await operation(redis());
    } catch (error) {
      throw redisUnavailable(what, error);
    }
  };

  const clear = (lane: string, questionId: string): Promise<void> =>
    run("clear the approval question", async (r) => {
      await r.eval(CLEAR, 1, questionKey(lane), questionId);
    });

  /** The question's outcome if it is settled: answered, or gone (lapsed or replaced). */
  const read = async (lane: string, questionId: string): Promise<ApprovalOutcome | undefined> => {
    const fields = await redis().hgetall(questionKey(lane));
    if (fields.id !== questionId) return { approved: false, reason: "timeout" };
    if (fields.approved === undefined) return undefined;
    return answeredOutcome({ approved: fields.approved === "1", by: fields.by ?? "", ...(fields.text ? { text: fields.text } : {}) });
  };

  const wait = (lane: string, questionId: string, waitOptions: WaitOptions): Promise<ApprovalOutcome> =>
    new Promise<ApprovalOutcome>((resolve) => {
      const { signal, deadline } = waitOptions;
      const key = `${lane}\n${questionId}`;
      let done = false;
      let reading = false;
      let poll: NodeJS.Timeout | undefined;
      let timer: NodeJS.Timeout | undefined;

      const finish = (outcome: ApprovalOutcome): void => {
        if (done) return;
        done = true;
        clearInterval(poll);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        aborters.delete(onAbort);
        const set = waiters.get(key);
        set?.delete(check);
        if (set?.size === 0) waiters.delete(key);
        // Dropped before resolving, so an answer after `wait` returns finds nothing pending.
        const dropped = closed ? Promise.resolve() : clear(lane, questionId);
        void dropped
          .catch((error: unknown) => log.warn({ err: errorMessage(error), lane }, "could not drop the approval question; it lapses at its deadline"))
          .finally(() => resolve(outcome));
      };
      function onAbort(): void {
        finish({ approved: false, reason: "aborted" });
      }
      async function check(): Promise<void> {
        if (done || reading) return;
        reading = true;
        try {
          const outcome = await read(lane, questionId);
          if (outcome) finish(outcome);
        } catch (error) {
          log.debug({ err: errorMessage(error), lane }, "could not read the approval question; trying again");
        } finally {
          reading = false;
        }
      }

      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      aborters.add(onAbort);
      const left = deadline - Date.now();
      if (left < MAX_TIMER_MS) {
        // One last read at the deadline: an answer may be on its way in a message.
        timer = setTimeout(() => void check().finally(() => finish({ approved: false, reason: "timeout" })), Math.max(0, left));
      }
      let set = waiters.get(key);
      if (set === undefined) {
        set = new Set();
        waiters.set(key, set);
      }
      set.add(check);
      poll = setInterval(() => void check(), pollMs);
      // Subscribed before the first read, so an answer lands either in the hash we read or in a message.
      subscribe()
        .catch((error: unknown) => log.warn({ err: errorMessage(error) }, "could not subscribe to approval answers; polling only"))
        .finally(() => void check());
    });

  return {
    kind: "redis",

    async ask(lane, request) {
      const id = randomUUID();
      const ttlMs = Math.max(1, Math.ceil(request.deadline - Date.now()));
      await run("record the approval question", (r) =>
        r.eval(ASK, 1, questionKey(lane), id, request.jobId, request.summary, String(request.deadline), String(ttlMs)),
      );
      return id;
    },

    wait,

    async answer(lane, reply: ApprovalReply) {
      const id = await run("answer the approval question", (r) =>
        r.eval(ANSWER, 1, questionKey(lane), reply.approved ? "1" : "0", reply.by, reply.text ?? "", channel, lane),
      );
      return typeof id === "string";
    },

    clear,

    async close() {
      // Questions of aborted waits stay until their deadline; a rerun of the job replaces them.
      closed = true;
      for (const abort of [...aborters]) abort();
      for (const connection of [client, subscriber]) connection?.disconnect();
    },
  };
}
