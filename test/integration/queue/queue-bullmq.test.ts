import { randomUUID } from "node:crypto";
import { Queue as BullQueue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createBullmqQueue, jobDataSchema, type BullmqQueueOptions, type JobData, type JobRunInfo, type Queue } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { deferred, jobOn, sleep, waitFor } from "./helpers.js";
import { deleteKeys, testRedis } from "./redis-server.js";
import { spawnWorker, type WorkerProcess } from "./worker-process.js";

/** Behaviour only a shared backend has: several processes on one Redis. */
describe("BullMQ queue across processes", () => {
  let redis: { url: string; stop(): Promise<void> };
  const prefix = `tackle-test-${randomUUID().slice(0, 8)}`;
  const opened: Queue[] = [];
  const children: WorkerProcess[] = [];
  let inspector: Redis;

  beforeAll(async () => {
    redis = await testRedis();
    inspector = new Redis(redis.url);
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await Promise.all(opened.splice(0).map((queue) => queue.close(100)));
  });
  afterAll(async () => {
    await deleteKeys(redis.url, prefix);
    inspector.disconnect();
    await redis.stop();
  });

  const open = (queueName: string, consume: boolean, extra: Pick<BullmqQueueOptions, "onDead"> = {}): Queue => {
    const queue = createBullmqQueue({
      ...extra,
      redisUrl: redis.url,
      queueName,
      prefix,
      consume,
      lockDurationMs: 1_000,
      stalledIntervalMs: 500,
      logger: silentLogger,
    });
    opened.push(queue);
    return queue;
  };

  const worker = (queueName: string, drainMs = 30_000): WorkerProcess => {
    const child = spawnWorker({ REDIS_URL: redis.url, QUEUE_NAME: queueName, QUEUE_PREFIX: prefix, DRAIN_MS: String(drainMs) });
    children.push(child);
    return child;
  };

  const counts = async (queueName: string): Promise<Record<string, number>> => {
    const bull = new BullQueue(queueName, { connection: inspector, prefix });
    try {
      return await bull.getJobCounts("waiting", "active", "delayed", "completed", "failed");
    } finally {
      await bull.close();
    }
  };

  const name = (): string => `q-${randomUUID().slice(0, 8)}`;

  it("dedupes a delivery sent to two processes at once", async () => {
    const queueName = name();
    const [one, two] = [open(queueName, false), open(queueName, false)];
    const data = jobOn(1, { delivery: "shared-delivery" });
    const outcomes = await Promise.all([one.enqueue(data), two.enqueue(data), one.enqueue(data), two.enqueue(data)]);
    expect(outcomes.filter((o) => o.status === "queued")).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "duplicate")).toHaveLength(3);
    expect((await counts(queueName)).waiting).toBe(1);
  });

  it("merges concurrent triggers from two processes into one pending job, dropping none", async () => {
    const queueName = name();
    const consumer = open(queueName, true);
    const producers = [open(queueName, false), open(queueName, false)];
    const gate = deferred();
    const runs: JobData[] = [];
    await consumer.start(async (data) => {
      runs.push(data);
      if (runs.length === 1) await gate.promise;
    });
    await consumer.enqueue(jobOn(2, { text: "first" }));
    await waitFor(() => runs.length === 1, 10_000, "the first job to start");

    const burst = Array.from({ length: 10 }, (_, i) => jobOn(2, { actor: `user${i}`, text: `text-${i}-end` }));
    const outcomes = await Promise.all(burst.map((data, i) => producers[i % 2]!.enqueue(data)));
    expect(outcomes.filter((o) => o.status === "queued")).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "merged")).toHaveLength(9);
    expect(new Set(outcomes.map((o) => o.jobId)).size).toBe(1);

    gate.resolve();
    await consumer.idle();
    expect(runs).toHaveLength(2);
    const text = runs[1]!.trigger.instructions ?? "";
    for (let i = 0; i < 10; i += 1) expect(text.split(`text-${i}-end`)).toHaveLength(2);
    expect(runs[1]!.mergedTriggers).toHaveLength(9);
  });

  it("/tackle stop aborts a job running in another process within seconds and drops its pending job", async () => {
    const queueName = name();
    const server = open(queueName, false);
    const child = worker(queueName);
    const running = jobOn(3, { text: "run" });
    await server.enqueue(running);
    const started = await child.next("started");
    expect((started.data as JobData).jobId).toBe(running.jobId);
    expect((await server.enqueue(jobOn(3, { text: "pending" }))).status).toBe("queued");

    const stoppedAt = Date.now();
    expect(await server.cancel(running.repo, running.number)).toBe(true);
    const aborted = await child.next("aborted", 5_000);
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    expect(aborted).toMatchObject({ message: "stopped on request", retryable: false });

    await server.idle();
    await sleep(300);
    expect(child.events.filter((e) => e.event === "started")).toHaveLength(1);
    // Both end as failed: the running one aborted, the pending one stopped before it ran (never as
    // "completed", whichever moment the stop reached it).
    expect(await counts(queueName)).toMatchObject({ waiting: 0, delayed: 0, active: 0, failed: 2, completed: 0 });
    const bull = new BullQueue(queueName, { connection: inspector, prefix });
    const reasons = (await bull.getFailed()).map((job) => job.failedReason).sort();
    await bull.close();
    expect(reasons).toEqual(["stopped before it ran", "stopped on request"]);
  });

  it("reruns the job of a worker killed with SIGKILL, with the same data, exactly once", async () => {
    const queueName = name();
    const server = open(queueName, false);
    const data = jobDataSchema.parse({ ...jobOn(4, { text: "survive a crash" }), trackingCommentId: 77 });
    await server.enqueue(data);
    const child = worker(queueName);
    const started = await child.next("started");
    expect(started.data).toEqual(data);
    child.kill("SIGKILL");
    await child.exited;

    const killedAt = Date.now();
    const reruns: Array<{ data: JobData; info: JobRunInfo | undefined; at: number }> = [];
    const successor = open(queueName, true);
    await successor.start(async (rerun, _signal, info) => {
      reruns.push({ data: rerun, info, at: Date.now() });
    });
    await waitFor(() => reruns.length === 1, 15_000, "the rerun");
    await successor.idle();
    await sleep(1_500);
    expect(reruns).toHaveLength(1);
    expect(reruns[0]!.data).toEqual(data);
    expect(reruns[0]!.info).toEqual({ attempt: 1, maxAttempts: 3 });
    expect(reruns[0]!.at - killedAt).toBeLessThan(10_000);
    expect(await counts(queueName)).toMatchObject({ completed: 1, failed: 0, waiting: 0, active: 0, delayed: 0 });
  });

  it("a job whose workers keep dying is failed by BullMQ without running again, reported dead once, its lane freed", async () => {
    const queueName = name();
    const server = open(queueName, false);
    const data = jobDataSchema.parse(jobOn(5, { text: "crash every worker" }));
    await server.enqueue(data);
    // Two workers die in it: the stalled checker reruns it once (maxStalledCount 1), then gives up.
    for (let i = 0; i < 2; i += 1) {
      const child = worker(queueName);
      await child.next("started");
      child.kill("SIGKILL");
      await child.exited;
    }

    const dead: Array<{ data: JobData; reason: string }> = [];
    const ran: JobData[] = [];
    const successor = open(queueName, true, {
      onDead: async (deadData, reason) => {
        dead.push({ data: deadData, reason });
      },
    });
    await successor.start(async (rerun) => {
      ran.push(rerun);
    });
    await waitFor(() => dead.length === 1, 15_000, "the dead job's report");
    expect(dead[0]!.data).toEqual(data);
    expect(dead[0]!.reason).not.toBe("");
    expect(ran).toEqual([]);

    // The lane is free at once, not after the dead holder's lease lapses.
    const next = jobOn(5, { text: "after the crash" });
    const enqueuedAt = Date.now();
    await server.enqueue(next);
    await waitFor(() => ran.length === 1, 10_000, "the next job on the issue");
    expect(Date.now() - enqueuedAt).toBeLessThan(2_500);
    await successor.idle();
    expect(dead).toHaveLength(1);
    expect(await counts(queueName)).toMatchObject({ failed: 1, completed: 1 });
  });

  it("SIGTERM drains within the bound, aborts the job and requeues it for another worker", async () => {
    const queueName = name();
    const server = open(queueName, false);
    const data = jobOn(6, { text: "drain me" });
    await server.enqueue(data);
    const child = worker(queueName, 400);
    await child.next("started");
    const termAt = Date.now();
    child.kill("SIGTERM");
    expect(await child.next("aborted", 5_000)).toMatchObject({ retryable: true });
    expect(Date.now() - termAt).toBeGreaterThanOrEqual(350);
    expect(await child.exited).toBe(0);
    expect(Date.now() - termAt).toBeLessThan(5_000);

    const reruns: JobData[] = [];
    const successor = open(queueName, true);
    const pickedUpFrom = Date.now();
    await successor.start(async (rerun) => {
      reruns.push(rerun);
    });
    await waitFor(() => reruns.length === 1, 10_000, "the requeued job");
    // Requeued, not stalled: no lock expiry to wait for.
    expect(Date.now() - pickedUpFrom).toBeLessThan(1_000);
    expect(reruns[0]).toEqual(jobDataSchema.parse(data));
    await successor.idle();
    expect(await counts(queueName)).toMatchObject({ completed: 1, failed: 0 });
  });

  it("idle() of an enqueue-only process waits for jobs other processes run", async () => {
    const queueName = name();
    const server = open(queueName, false);
    const consumer = open(queueName, true);
    let done = 0;
    await consumer.start(async () => {
      await sleep(200);
      done += 1;
    });
    await server.enqueue(jobOn(8));
    await server.enqueue(jobOn(9));
    await server.idle();
    expect(done).toBe(2);
  });
});
