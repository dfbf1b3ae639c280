/**
 * Queue overhead per job with two workers: no-op jobs through the embedded queue (concurrency 2) and
 * through BullMQ on a private redis-server (two consumer queues, concurrency 1 each, plus an
 * enqueue-only one, as `tackle server` + two `tackle worker`s). Each figure is set against calling
 * the same processor directly, in the same run.
 *   burst    — 200 jobs on distinct lanes, enqueued one after another as fast as they are accepted;
 *   at rest  — 50 jobs one at a time (the next is enqueued when the last has run): pure latency;
 *   one lane — 20 jobs on one issue, each enqueued while the previous one runs (so it waits as the
 *              lane's pending job): what the lane lease costs at each handoff.
 */
import { EventEmitter, once } from "node:events";
import { performance } from "node:perf_hooks";
import { createBullmqQueue, createEmbeddedQueue, type JobData, type JobProcessor, type Queue } from "../src/jobs/index.js";
import { silentLogger } from "../src/logging/logger.js";
import { startOwnRedis, until } from "./engine-helpers.js";
import { percentile, printTable } from "./table.js";

const BURST = 200;
const AT_REST = 50;
const ONE_LANE = 20;
/** How long a one-lane job keeps running after enqueueing the next: time for a worker to find the lane busy and park that job. */
const LANE_HOLD_MS = 10;

let sequence = 0;

/** A job on issue `number` of one repository; every call is a new delivery. */
function jobData(number: number): JobData {
  sequence += 1;
  return {
    jobId: `bench-widgets-${number}-d${sequence}`,
    deliveryId: `d${sequence}`,
    installationId: 1,
    repo: { owner: "bench", name: "widgets" },
    number,
    isPullRequest: false,
    trigger: { kind: "issue_assigned", actor: "alice" },
    enqueuedAt: new Date().toISOString(),
  };
}

/** Where a job's time went, by job id (performance.now() ms). */
interface Timeline {
  enqueued: Map<string, number>;
  enqueueMs: number[];
  started: Map<string, number>;
  ended: Map<string, number>;
  /** Jobs run, per consumer. */
  byConsumer: number[];
  /** Emits a job's id when its processor returns. */
  events: EventEmitter;
}

const newTimeline = (consumers: number): Timeline => ({
  enqueued: new Map(),
  enqueueMs: [],
  started: new Map(),
  ended: new Map(),
  byConsumer: Array.from({ length: consumers }, () => 0),
  events: new EventEmitter().setMaxListeners(0),
});

/** Resolves when job `id` has run (at once if it has); rejects after a minute. */
async function ended(timeline: Timeline, id: string): Promise<void> {
  const signal = AbortSignal.timeout(60_000);
  while (!timeline.ended.has(id)) await once(timeline.events, "ended", { signal });
}

/** The processor every row runs: notes when it starts and ends, and does nothing else unless told. */
function recorder(timeline: Timeline, consumer: number, during?: (data: JobData) => Promise<void>): JobProcessor {
  return async (data) => {
    timeline.started.set(data.jobId, performance.now());
    timeline.byConsumer[consumer]! += 1;
    if (during) await during(data);
    timeline.ended.set(data.jobId, performance.now());
    timeline.events.emit("ended", data.jobId);
  };
}

async function enqueueTimed(producer: Queue, timeline: Timeline, data: JobData): Promise<void> {
  const before = performance.now();
  timeline.enqueued.set(data.jobId, before);
  const outcome = await producer.enqueue(data);
  timeline.enqueueMs.push(performance.now() - before);
  if (outcome.status !== "queued") throw new Error(`job ${data.jobId} was ${outcome.status}`);
}

/** The baseline: the same processor called directly, one call after another. */
async function directCallMs(): Promise<number> {
  const timeline = newTimeline(1);
  const processor = recorder(timeline, 0);
  const signal = new AbortController().signal;
  const jobs = Array.from({ length: BURST }, (_, i) => jobData(i + 1));
  for (const data of jobs.slice(0, 20)) await processor(data, signal);
  const start = performance.now();
  for (const data of jobs) await processor(data, signal);
  return (performance.now() - start) / BURST;
}

interface Backend {
  name: string;
  workers: string;
  producer: Queue;
  /** Starts the consumers on processors made by `make` (one per consumer index). */
  start(make: (consumer: number) => JobProcessor): Promise<void>;
  close(): Promise<void>;
}

function embeddedBackend(): Backend {
  const queue = createEmbeddedQueue({ logger: silentLogger, concurrency: 2 });
  return {
    name: "embedded",
    workers: "1 queue, concurrency 2",
    producer: queue,
    start: (make) => queue.start(make(0)),
    close: () => queue.close(5_000),
  };
}

function bullmqBackend(redisUrl: string, run: string): Backend {
  const common = { redisUrl, queueName: `bench-${run}`, prefix: "bench", logger: silentLogger };
  const producer = createBullmqQueue({ ...common, consume: false });
  const consumers = [0, 1].map(() => createBullmqQueue({ ...common, consume: true, concurrency: 1 }));
  return {
    name: "BullMQ",
    workers: "2 queues, concurrency 1 each",
    producer,
    async start(make) {
      await Promise.all(consumers.map((queue, i) => queue.start(make(i))));
    },
    async close() {
      await Promise.all(consumers.map((queue) => queue.close(5_000)));
      await producer.close(5_000);
    },
  };
}

/** One job through a fresh backend before measuring: connections, scripts and JIT warm. */
async function warmUp(backend: Backend, timeline: Timeline): Promise<void> {
  const data = jobData(1_000_000);
  await enqueueTimed(backend.producer, timeline, data);
  await ended(timeline, data.jobId);
}

interface LoadResult {
  timeline: Timeline;
  jobs: string[];
  wallMs: number;
}

async function burst(backend: Backend, timeline: Timeline): Promise<LoadResult> {
  const jobs = Array.from({ length: BURST }, (_, i) => jobData(i + 1));
  const start = performance.now();
  for (const data of jobs) await enqueueTimed(backend.producer, timeline, data);
  for (const data of jobs) await ended(timeline, data.jobId);
  const lastEnd = Math.max(...jobs.map((data) => timeline.ended.get(data.jobId)!));
  return { timeline, jobs: jobs.map((data) => data.jobId), wallMs: lastEnd - start };
}

async function atRest(backend: Backend, timeline: Timeline): Promise<LoadResult> {
  const jobs = Array.from({ length: AT_REST }, (_, i) => jobData(10_000 + i));
  const start = performance.now();
  for (const data of jobs) {
    await enqueueTimed(backend.producer, timeline, data);
    await ended(timeline, data.jobId);
  }
  return { timeline, jobs: jobs.map((data) => data.jobId), wallMs: performance.now() - start };
}

/** Runs the burst and the at-rest load on one backend; the consumers' processors are made once. */
async function measureBackend(backend: Backend): Promise<{ burst: LoadResult; atRest: LoadResult }> {
  let timeline = newTimeline(2);
  await backend.start((consumer) => async (data, signal) => recorder(timeline, consumer)(data, signal));
  try {
    await warmUp(backend, timeline);
    timeline = newTimeline(2);
    const burstResult = await burst(backend, timeline);
    timeline = newTimeline(2);
    const atRestResult = await atRest(backend, timeline);
    return { burst: burstResult, atRest: atRestResult };
  } finally {
    await backend.close();
  }
}

/**
 * 20 jobs on one issue: job k enqueues job k+1 while it runs (it becomes the lane's pending job; a
 * BullMQ worker that takes it finds the lane leased and parks it as delayed) and returns
 * LANE_HOLD_MS later. The handoff is from k's return to k+1's start: release, wake, pick up, claim.
 */
async function oneLane(backend: Backend): Promise<{ wallMs: number; handoffs: number[] }> {
  const timeline = newTimeline(2);
  const lane = 7;
  const ids: string[] = [];
  const next = async (): Promise<void> => {
    if (ids.length >= ONE_LANE) return;
    const data = jobData(lane);
    ids.push(data.jobId);
    const outcome = await backend.producer.enqueue(data);
    if (outcome.status !== "queued") throw new Error(`one-lane job ${data.jobId} was ${outcome.status}`);
  };
  const hold = async (data: JobData): Promise<void> => {
    if (data.number !== lane) return;
    await next();
    await new Promise((resolve) => setTimeout(resolve, LANE_HOLD_MS));
  };
  await backend.start((consumer) => recorder(timeline, consumer, hold));
  try {
    await warmUp(backend, timeline);
    const start = performance.now();
    await next();
    await until(() => ids.length === ONE_LANE, 120_000);
    for (const id of ids) await ended(timeline, id);
    const wallMs = Math.max(...ids.map((id) => timeline.ended.get(id)!)) - start;
    const handoffs = ids.slice(1).map((id, i) => timeline.started.get(id)! - timeline.ended.get(ids[i]!)!);
    return { wallMs, handoffs };
  } finally {
    await backend.close();
  }
}

const us = (value: number): string => (value < 1 ? `${(value * 1000).toFixed(1)} µs` : value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(0)} ms`);

function loadRow(backend: Backend, load: string, result: LoadResult, directMs: number): string[] {
  const { timeline, jobs, wallMs } = result;
  const waits = jobs.map((id) => timeline.started.get(id)! - timeline.enqueued.get(id)!);
  const perJob = wallMs / jobs.length;
  return [
    backend.name,
    backend.workers,
    load,
    us(percentile(timeline.enqueueMs, 50)),
    us(percentile(waits, 50)),
    us(percentile(waits, 95)),
    `${Math.round(jobs.length / (wallMs / 1000))}/s`,
    us(perJob),
    us(perJob - directMs),
    `${Math.round(perJob / directMs)}×`,
    timeline.byConsumer.join(" + "),
  ];
}

export async function run(): Promise<void> {
  const redis = await startOwnRedis();
  const runId = `${process.pid}-${Date.now()}`;
  try {
    const directMs = await directCallMs();
    const rows: string[][] = [];
    for (const make of [() => embeddedBackend(), () => bullmqBackend(redis.url, `${runId}-a`)]) {
      const backend = make();
      const result = await measureBackend(backend);
      rows.push(loadRow(backend, `burst of ${BURST}, distinct lanes`, result.burst, directMs));
      rows.push(loadRow(backend, `${AT_REST} at rest, one at a time`, result.atRest, directMs));
    }
    printTable(
      [
        "queue",
        "workers",
        "load",
        "enqueue p50",
        "enqueue→start p50",
        "enqueue→start p95",
        "throughput",
        "per job",
        "overhead per job",
        "vs direct call",
        "jobs per consumer",
      ],
      rows,
    );
    console.log(
      `\nBaseline: the same no-op processor called directly, ${us(directMs)} per call. "per job" is wall time ÷ jobs (for the at-rest rows, the whole enqueue → run → next enqueue round).`,
    );

    const laneRows: string[][] = [];
    for (const make of [() => embeddedBackend(), () => bullmqBackend(redis.url, `${runId}-lane`)]) {
      const backend = make();
      const { wallMs, handoffs } = await oneLane(backend);
      laneRows.push([
        backend.name,
        backend.workers,
        String(ONE_LANE),
        us(wallMs / ONE_LANE),
        us(percentile(handoffs, 50)),
        us(percentile(handoffs, 95)),
        us(Math.max(...handoffs)),
      ]);
    }
    console.log("");
    printTable(["queue", "workers", "jobs on one lane", "time per job", "handoff p50", "handoff p95", "handoff max"], laneRows);
    console.log(
      `\nEach job enqueues the next while it runs, then returns ${LANE_HOLD_MS} ms later (so the next waits as the lane's pending job); ` +
        "a handoff is from one job's return to the next one's start. Time per job includes the hold.",
    );
  } finally {
    await redis.stop();
  }
}
