// Exactly one of the webhook handler and the job posts the tracking comment; the other gets its id.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedAckClaims, createRedisAckClaims, type AckClaims } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { testRedis } from "../queue/redis-server.js";

function contract(name: string, make: () => { a: AckClaims; b: AckClaims }) {
  describe(name, () => {
    it("the first claim wins, across instances; the loser gets the comment id once it is recorded", async () => {
      const { a, b } = make();
      const job = `job-${randomUUID()}`;
      const [first, second] = await Promise.all([a.claim(job), b.claim(job)]);
      expect([first, second].sort()).toEqual([false, true]);
      const [winner, loser] = first ? [a, b] : [b, a];
      const waited = loser.waitForComment(job, { timeoutMs: 5000 });
      setTimeout(() => void winner.setComment(job, 4242), 300);
      expect(await waited).toBe(4242);
      expect(await a.claim(job)).toBe(false);
    });

    it("waiting returns null at once when nobody claimed, and when the claimer gave up", async () => {
      const { a, b } = make();
      const job = `job-${randomUUID()}`;
      const started = Date.now();
      expect(await a.waitForComment(job, { timeoutMs: 5000 })).toBeNull();
      expect(await a.claim(job)).toBe(true);
      const waited = b.waitForComment(job, { timeoutMs: 5000 });
      setTimeout(() => void a.release(job), 300);
      expect(await waited).toBeNull();
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it("waiting ends at its timeout while the claimer never records", async () => {
      const { a, b } = make();
      const job = `job-${randomUUID()}`;
      await a.claim(job);
      const started = Date.now();
      expect(await b.waitForComment(job, { timeoutMs: 600 })).toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    });
  });
}

const embedded = createEmbeddedAckClaims();
contract("embedded", () => ({ a: embedded, b: embedded }));

let redis: { url: string; stop(): Promise<void> } | undefined;
const stores: AckClaims[] = [];
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await redis?.stop();
});
contract("redis, two connections", () => {
  const prefix = `test-${randomUUID()}`;
  const a = createRedisAckClaims({ redisUrl: redis!.url, prefix, logger: silentLogger });
  const b = createRedisAckClaims({ redisUrl: redis!.url, prefix, logger: silentLogger });
  stores.push(a, b);
  return { a, b };
});
