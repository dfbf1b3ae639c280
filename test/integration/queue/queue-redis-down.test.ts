import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createBullmqQueue, type JobData } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { jobOn, waitFor } from "./helpers.js";
import { startOwnRedis, type OwnRedis } from "./redis-server.js";

/** Always on a redis-server of its own: the test stops and restarts it. */
describe("BullMQ queue with Redis stopped and restarted", () => {
  let redis: OwnRedis;

  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("fails enqueue fast while Redis is down, reports not ready, and recovers", async () => {
    const queue = createBullmqQueue({
      redisUrl: redis.url,
      queueName: "down-and-up",
      consume: true,
      lockDurationMs: 1_000,
      stalledIntervalMs: 500,
      logger: silentLogger,
    });
    const runs: JobData[] = [];
    try {
      await queue.start(async (data) => {
        runs.push(data);
      });
      await queue.enqueue(jobOn(1));
      await waitFor(() => runs.length === 1, 10_000, "the first job");

      await redis.stop();
      await waitFor(async () => !(await queue.ready()), 5_000, "ready() to turn false");
      const failedAt = Date.now();
      const error = await queue.enqueue(jobOn(2)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(Date.now() - failedAt).toBeLessThan(250);
      expect(isTackleError(error, "queue_unavailable")).toBe(true);
      expect(await queue.ready()).toBe(false);

      await redis.start();
      await waitFor(() => queue.ready(), 10_000, "ready() after the restart");
      const later = jobOn(3);
      expect(await queue.enqueue(later)).toMatchObject({ status: "queued", jobId: later.jobId });
      await waitFor(() => runs.length === 2, 15_000, "the job enqueued after the restart");
      expect(runs[1]!.jobId).toBe(later.jobId);
    } finally {
      await queue.close(100);
    }
  });
});
