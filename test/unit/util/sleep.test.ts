import { describe, expect, it } from "vitest";
import { sleep } from "../../../src/util/sleep.js";

describe("sleep", () => {
  it("waits, and leaves no abort listener behind on the signal it was given", async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added += 1;
      add(...args);
    }) as typeof add;
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed += 1;
      remove(...args);
    }) as typeof remove;
    const started = Date.now();
    for (let i = 0; i < 20; i += 1) await sleep(5, controller.signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(added).toBe(20);
    expect(removed).toBe(20);
  });

  it("ends early when the signal aborts", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = sleep(10_000, controller.signal);
    controller.abort();
    await waiting;
    expect(Date.now() - started).toBeLessThan(1_000);
    await sleep(10_000, controller.signal);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
