import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe } from "vitest";
import { createBullmqQueue, createEmbeddedQueue } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { queueContract } from "./queue-contract.js";
import { deleteKeys, testRedis } from "./redis-server.js";

describe("embedded queue", () => {
  queueContract(async (options) =>
    createEmbeddedQueue({
      logger: silentLogger,
      abortGraceMs: 1_000,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    }),
  );
});

describe("BullMQ queue (real Redis)", () => {
  let redis: { url: string; stop(): Promise<void> };
  const prefix = `tackle-test-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    redis = await testRedis();
  });
  afterAll(async () => {
    await deleteKeys(redis.url, prefix);
    await redis.stop();
  });

  queueContract(async (options) =>
    createBullmqQueue({
      redisUrl: redis.url,
      queueName: `contract-${randomUUID().slice(0, 8)}`,
      prefix,
      consume: true,
      lockDurationMs: 1_000,
      stalledIntervalMs: 500,
      abortGraceMs: 1_000,
      logger: silentLogger,
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    }),
  );
});
