import { afterEach, expect, it } from "vitest";
import { TackleError, isTackleError } from "../../../src/errors/index.js";
import { isShutdownReason, laneKey, type JobData, type JobRunInfo, type Queue, type RetryPolicy } from "../../../src/jobs/index.js";
import { deferred, jobOn, sleep, untilAborted, waitFor } from "./helpers.js";

export interface ContractQueueOptions {
  concurrency?: number;
  retry?: Partial<RetryPolicy>;
}

/** Builds a fresh, empty queue that consumes once started. */
export type MakeQueue = (options: ContractQueueOptions) => Promise<Queue>;

interface Span {
  jobId: string;
  lane: string;
  start: number;
  end: number;
}

/** Runs `work` for each job and records when it started and ended. */
function recorder(work: (data: JobData, signal: AbortSignal, info: JobRunInfo | undefined) => Promise<void>) {
  const spans: Span[] = [];
  const calls: Array<{ data: JobData; info: JobRunInfo | undefined; at: number }> = [];
  const processor = async (data: JobData, signal: AbortSignal, info?: JobRunInfo): Promise<void> => {
    const span: Span = { jobId: data.jobId, lane: laneKey(data), start: Date.now(), end: Number.NaN };
    calls.push({ data, info, at: span.start });
    try {
      await work(data, signal, info);
    } finally {
      span.end = Date.now();
      spans.push(span);
    }
  };
  return { processor, spans, calls };
}

/** A recorder whose jobs run until aborted, keeping each abort reason. */
function abortRecorder() {
  const reasons: unknown[] = [];
  const recorded = recorder(async (_data, signal) => {
    try {
      await untilAborted(signal);
    } catch (reason) {
      reasons.push(reason);
      throw reason;
    }
  });
  return { ...recorded, reasons };
}

/**
 * The behaviour both queue backends promise (see the Queue interface). Each test builds its own
 * queue and closes it afterwards.
 */
export function queueContract(makeQueue: MakeQueue): void {
  const opened: Queue[] = [];
  const make = async (options: ContractQueueOptions = {}): Promise<Queue> => {
    const queue = await makeQueue(options);
    opened.push(queue);
    return queue;
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((queue) => queue.close(100)));
  });

  it("is ready while its backend is up", async () => {
    const queue = await make();
    expect(await queue.ready()).toBe(true);
  });

  it("runs a delivery once: the same X-GitHub-Delivery again is a duplicate", async () => {
    const queue = await make();
    const { processor, calls } = recorder(async () => undefined);
    await queue.start(processor);
    const first = jobOn(1, { delivery: "same-delivery" });
    const again = { ...jobOn(1, { delivery: "same-delivery" }), jobId: "another-id" };
    expect(await queue.enqueue(first)).toEqual({ status: "queued", jobId: first.jobId, position: 1 });
    expect(await queue.enqueue(again)).toEqual({ status: "duplicate", jobId: first.jobId });
    await queue.idle();
    await sleep(100);
    expect(calls.map((call) => call.data.jobId)).toEqual([first.jobId]);
  });

  it("runs one job at a time per issue, and other issues alongside", async () => {
    const queue = await make({ concurrency: 2 });
    const gate = deferred();
    const a = jobOn(1);
    const b = jobOn(1);
    const c = jobOn(2);
    const { processor, spans, calls } = recorder(async (data) => {
      if (data.jobId === a.jobId) await gate.promise;
    });
    await queue.start(processor);
    await queue.enqueue(a);
    // b is enqueued once a runs: before that it would merge into a, the lane's pending job.
    await waitFor(() => calls.length === 1, 10_000, "a to start");
    await queue.enqueue(b);
    await queue.enqueue(c);
    // c (another issue) runs while a still does; b (the same issue) waits for a.
    await waitFor(() => spans.some((span) => span.jobId === c.jobId), 10_000, "c to run alongside a");
    expect(calls.map((call) => call.data.jobId)).toEqual([a.jobId, c.jobId]);
    gate.resolve();
    await queue.idle();
    const span = (data: JobData): Span => spans.find((s) => s.jobId === data.jobId)!;
    expect(spans).toHaveLength(3);
    expect(span(b).start).toBeGreaterThanOrEqual(span(a).end);
  });

  it("keeps one job pending per issue and merges a burst into it, in order", async () => {
    const queue = await make();
    const gate = deferred();
    const { processor, calls } = recorder(async (data) => {
      if (data.trigger.instructions === "first") await gate.promise;
    });
    await queue.start(processor);
    const first = jobOn(5, { actor: "alice", text: "first" });
    expect(await queue.enqueue(first)).toEqual({ status: "queued", jobId: first.jobId, position: 1 });
    await waitFor(() => calls.length === 1, 10_000, "the first job to start");

    const burst = [
      jobOn(5, { actor: "bob", text: "second" }),
      jobOn(5, { actor: "carol", text: "third" }),
      jobOn(5, { actor: "dave" }),
      jobOn(5, { actor: "erin", text: "fifth" }),
    ];
    const outcomes = [];
    for (const data of burst) outcomes.push(await queue.enqueue(data));
    const pendingId = burst[0]!.jobId;
    expect(outcomes).toEqual([
      { status: "queued", jobId: pendingId, position: 2 },
      { status: "merged", jobId: pendingId, position: 2 },
      { status: "merged", jobId: pendingId, position: 2 },
      { status: "merged", jobId: pendingId, position: 2 },
    ]);
    // A merged delivery is remembered too.
    expect(await queue.enqueue(burst[2]!)).toEqual({ status: "duplicate", jobId: pendingId });
    await sleep(200);
    expect(calls).toHaveLength(1);

    gate.resolve();
    await queue.idle();
    expect(calls).toHaveLength(2);
    expect(calls[0]!.data.trigger.instructions).toBe("first");
    const merged = calls[1]!.data;
    expect(merged.jobId).toBe(pendingId);
    expect(merged.trigger.actor).toBe("bob");
    expect(merged.mergedTriggers?.map((t) => t.actor)).toEqual(["carol", "dave", "erin"]);
    expect(merged.mergedTriggers?.map((t) => t.deliveryId)).toEqual(burst.slice(1).map((d) => d.deliveryId));
    const text = merged.trigger.instructions ?? "";
    const marks = ["@bob", "second", "@carol", "third", "@dave", "(no instructions)", "@erin", "fifth"];
    const at = marks.map((mark) => text.indexOf(mark));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
  });

  it("stops the running job through its signal within seconds and drops the pending one", async () => {
    const queue = await make();
    const { processor, calls, reasons } = abortRecorder();
    await queue.start(processor);
    const running = jobOn(9, { text: "long" });
    await queue.enqueue(running);
    await waitFor(() => calls.length === 1, 10_000, "the job to start");
    expect((await queue.enqueue(jobOn(9, { text: "next" }))).status).toBe("queued");

    const stoppedAt = Date.now();
    expect(await queue.cancel(running.repo, running.number)).toBe(true);
    await waitFor(() => reasons.length === 1, 5_000, "the abort");
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    expect(isTackleError(reasons[0], "aborted")).toBe(true);
    expect((reasons[0] as TackleError).retryable).toBe(false);

    await queue.idle();
    await sleep(200);
    expect(calls).toHaveLength(1);
    expect(await queue.cancel(running.repo, running.number)).toBe(false);

    // The issue takes new work afterwards.
    const later = jobOn(9, { text: "later" });
    await queue.enqueue(later);
    await waitFor(() => calls.length === 2, 10_000, "a job after the stop");
    expect(calls[1]!.data.jobId).toBe(later.jobId);
  });

  it("retries retryable errors with growing backoff and tells the processor the attempt", async () => {
    const queue = await make({ concurrency: 3, retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 } });
    const flaky = jobOn(11);
    const denied = jobOn(12);
    const broken = jobOn(13);
    const { processor, calls } = recorder(async (data, _signal, info) => {
      if (data.jobId === flaky.jobId && (info?.attempt ?? 1) < 3) {
        throw new TackleError("github_api", "502 from GitHub", { retryable: true });
      }
      if (data.jobId === denied.jobId) throw new TackleError("auth_failed", "bad credentials");
      if (data.jobId === broken.jobId) throw new Error("unexpected");
    });
    await queue.start(processor);
    for (const data of [flaky, denied, broken]) await queue.enqueue(data);
    await queue.idle();
    const of = (data: JobData) => calls.filter((call) => call.data.jobId === data.jobId);
    expect(of(flaky).map((call) => call.info)).toEqual([
      { attempt: 1, maxAttempts: 3 },
      { attempt: 2, maxAttempts: 3 },
      { attempt: 3, maxAttempts: 3 },
    ]);
    const [one, two, three] = of(flaky).map((call) => call.at);
    // Equal jitter: retry n waits between half and all of base·2^(n-1).
    expect(two! - one!).toBeGreaterThanOrEqual(45);
    expect(three! - two!).toBeGreaterThanOrEqual(95);
    expect(of(denied)).toHaveLength(1);
    expect(of(broken)).toHaveLength(3);
  });

  it("keeps the issue's lane through a retry's backoff", async () => {
    const queue = await make({ concurrency: 2, retry: { attempts: 2, baseDelayMs: 400, maxDelayMs: 400 } });
    const a = jobOn(21);
    const b = jobOn(21);
    const { processor, spans } = recorder(async (data, _signal, info) => {
      if (data.jobId === a.jobId && info?.attempt === 1) throw new Error("transient");
    });
    await queue.start(processor);
    await queue.enqueue(a);
    await queue.enqueue(b);
    await queue.idle();
    expect(spans.map((s) => s.jobId)).toEqual([a.jobId, a.jobId, b.jobId]);
    expect(spans[2]!.start).toBeGreaterThanOrEqual(spans[1]!.end);
  });

  it("stops a job waiting out a retry's backoff: the retry never runs", async () => {
    const queue = await make({ retry: { attempts: 2, baseDelayMs: 1_000, maxDelayMs: 1_000 } });
    const job = jobOn(22);
    const { processor, calls, spans } = recorder(async () => {
      throw new Error("transient");
    });
    await queue.start(processor);
    await queue.enqueue(job);
    await waitFor(() => spans.length === 1, 10_000, "the first attempt to fail");
    await sleep(100);
    expect(await queue.cancel(job.repo, job.number)).toBe(true);
    await queue.idle();
    await sleep(1_200);
    expect(calls).toHaveLength(1);
  });

  it("counts its jobs by state for /metrics: running ones active, the others not, and none once idle", async () => {
    const queue = await make({ concurrency: 1 });
    const gate = deferred();
    const { processor, calls } = recorder(() => gate.promise);
    await queue.start(processor);
    expect(await queue.counts()).toEqual({ waiting: 0, active: 0, delayed: 0 });
    await queue.enqueue(jobOn(41));
    await waitFor(() => calls.length === 1, 10_000, "the first job to start");
    // One behind the running job on its issue, one on another issue with no free slot.
    await queue.enqueue(jobOn(41));
    await queue.enqueue(jobOn(42));
    const busy = await queue.counts();
    expect(busy.active).toBe(1);
    expect(busy.waiting + busy.delayed).toBe(2);
    gate.resolve();
    await queue.idle();
    expect(await queue.counts()).toEqual({ waiting: 0, active: 0, delayed: 0 });
  });

  it("on close, lets a running job finish within the bound", async () => {
    const queue = await make();
    const { processor, spans, calls } = recorder(() => sleep(300));
    await queue.start(processor);
    await queue.enqueue(jobOn(31));
    await waitFor(() => calls.length === 1, 10_000, "the job to start");
    const closedAt = Date.now();
    await queue.close(5_000);
    expect(spans).toHaveLength(1);
    expect(Date.now() - closedAt).toBeLessThan(2_000);
  });

  it("on close, aborts jobs still running at the bound, then refuses new ones", async () => {
    const queue = await make();
    const { processor, calls, reasons } = abortRecorder();
    await queue.start(processor);
    await queue.enqueue(jobOn(32));
    await waitFor(() => calls.length === 1, 10_000, "the job to start");
    const closedAt = Date.now();
    await queue.close(300);
    const took = Date.now() - closedAt;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3_000);
    expect(reasons).toHaveLength(1);
    expect(isShutdownReason(reasons[0])).toBe(true);
    await expect(queue.enqueue(jobOn(33))).rejects.toMatchObject({ code: "queue_unavailable" });
    expect(await queue.ready()).toBe(false);
  });
}
