import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createRedisApprovals } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { approvalsContract } from "../../unit/jobs/approvals-contract.js";
import { deleteKeys, testRedis } from "../queue/redis-server.js";

let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Two stores on their own connections, as a worker and the server would be, under a prefix of their own. */
function pair(options: { pollMs?: number } = {}) {
  const prefix = `tackle-test-${randomUUID()}`;
  const make = () => createRedisApprovals({ redisUrl: redis.url, prefix, logger: silentLogger, ...options });
  const asker = make();
  const answerer = make();
  return {
    prefix,
    asker,
    answerer,
    async close() {
      await asker.close();
      await answerer.close();
      await deleteKeys(redis.url, prefix);
    },
  };
}

approvalsContract("redis, two processes", async () => pair());

describe("redis approvals", () => {
  const LANE = "octo/widgets#7";

  it("keeps the question under a key whose TTL is the deadline, so a dead worker's question lapses", async () => {
    const p = pair();
    const raw = new Redis(redis.url);
    try {
      await p.asker.ask(LANE, { jobId: "job-1", summary: "Bash: sudo", deadline: Date.now() + 60_000 });
      const key = `${p.prefix}:approvals:question:${LANE}`;
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(55_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await raw.hget(key, "jobId")).toBe("job-1");
    } finally {
      raw.disconnect();
      await p.close();
    }
  });

  it("a waiter whose message was lost still sees the answer by polling", async () => {
    const p = pair({ pollMs: 100 });
    const raw = new Redis(redis.url);
    try {
      const id = await p.asker.ask(LANE, { jobId: "job-1", summary: "Bash: sudo", deadline: Date.now() + 30_000 });
      const waiting = p.asker.wait(LANE, id, { deadline: Date.now() + 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      // Written as `answer` would, but never published.
      await raw.hset(`${p.prefix}:approvals:question:${LANE}`, "approved", "1", "by", "alice", "text", "");
      const started = Date.now();
      expect(await waiting).toEqual({ approved: true, by: "alice", reason: "answered" });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      raw.disconnect();
      await p.close();
    }
  });

  it("answering with Redis unreachable fails fast with queue_unavailable (the webhook answers 503)", async () => {
    const store = createRedisApprovals({ redisUrl: "redis://127.0.0.1:1", logger: silentLogger, operationTimeoutMs: 1_000 });
    try {
      const started = Date.now();
      const error = await store.answer(LANE, { approved: true, by: "alice" }).catch((caught: unknown) => caught);
      expect(isTackleError(error, "queue_unavailable")).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await store.close();
    }
  });
});
