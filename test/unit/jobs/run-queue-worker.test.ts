import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { createEmbeddedQueue, runQueueWorker, jobDataSchema } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";

const data = jobDataSchema.parse({
  jobId: "j1",
  deliveryId: "d1",
  repo: { owner: "o", name: "r" },
  number: 1,
  trigger: { kind: "issue_labeled", actor: "alice" },
  enqueuedAt: "2026-01-01T00:00:00.000Z",
});

describe("runQueueWorker", () => {
  it("consumes until SIGTERM, then drains within the bound and aborts what is left", async () => {
    const signals = new EventEmitter();
    const queue = createEmbeddedQueue({ logger: silentLogger, abortGraceMs: 1_000 });
    const reasons: unknown[] = [];
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const done = runQueueWorker({
      queue,
      logger: silentLogger,
      drainMs: 200,
      signals,
      processor: (_data, signal) =>
        new Promise((_, reject) => {
          started();
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          });
        }),
    });
    await queue.enqueue(data);
    await running;
    const termAt = Date.now();
    signals.emit("SIGTERM");
    await done;
    expect(Date.now() - termAt).toBeGreaterThanOrEqual(180);
    expect(reasons).toHaveLength(1);
    expect(signals.listenerCount("SIGINT")).toBe(0);
    await expect(queue.enqueue({ ...data, deliveryId: "d2" })).rejects.toMatchObject({ code: "queue_unavailable" });
  });
});
