// `tackle worker --port N` serves `/metrics` beside its health checks: the queue's gauges read from
// BullMQ on a real Redis at each scrape (Tackle's own and BullMQ's export), Node's process metrics,
// behind TACKLE_METRICS_TOKEN when it is set. The worker is a real process (startWorker as cli.ts
// calls it); the jobs are put in the queue's Redis by BullMQ itself, delayed so none runs meanwhile.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Queue as BullQueue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { JobData } from "../../../src/jobs/index.js";
import { startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { deleteKeys, testRedis } from "../queue/redis-server.js";
import { familyNames, parseExposition, samplesOf, sampleValue } from "../../unit/web/prometheus-text.js";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "start-worker.ts");
const TOKEN = "worker-metrics-token-93be71d0";

let gh: FakeGitHub;
let redis: { url: string; stop(): Promise<void> };
let home: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  gh = await startFakeGitHub();
  redis = await testRedis();
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-worker-metrics-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
  }
  await deleteKeys(redisUrl(), "tackle");
});
afterAll(async () => {
  await gh?.close();
  await redis?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** A database of its own: the worker uses the default queue name and prefix (worker-health uses 15). */
function redisUrl(): string {
  const url = new URL(redis.url);
  url.pathname = "/14";
  return url.href;
}

/** Starts `tackle worker --port 0` and resolves with its metrics port once it consumes (slow under load: tsx compiles it). */
async function startWorker(extraEnv: Record<string, string>): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...gh.appEnv(),
      ANTHROPIC_API_KEY: "sk-ant-worker-metrics-test",
      TACKLE_HOME: home,
      TACKLE_SANDBOX: "off",
      LOG_LEVEL: "info",
      REDIS_URL: redisUrl(),
      TEST_WORKER_PORT: "0",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  for (let waited = 0; ; waited += 50) {
    const port = /health checks on port (\d+) \(\/healthz, \/readyz, \/metrics\)/.exec(output)?.[1];
    if (port !== undefined && output.includes("tackle worker consuming bullmq jobs")) return Number(port);
    if (child.exitCode !== null || waited > 120_000) throw new Error(`the worker did not start (exit ${child.exitCode}):\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function jobData(number: number): JobData {
  return {
    jobId: `octo-widgets-${number}-metrics`,
    deliveryId: `d-metrics-${number}`,
    installationId: 1,
    repo: { owner: "octo", name: "widgets" },
    number,
    isPullRequest: false,
    trigger: { kind: "issue_assigned", actor: "alice" },
    enqueuedAt: new Date().toISOString(),
  };
}

/** Two jobs in the worker's queue, due in an hour. */
async function addDelayedJobs(): Promise<void> {
  const url = new URL(redisUrl());
  const queue = new BullQueue<JobData>("tackle-jobs", {
    prefix: "tackle",
    connection: { host: url.hostname, port: Number(url.port), db: 14, ...(url.password ? { password: decodeURIComponent(url.password) } : {}) },
  });
  try {
    for (const number of [1, 2]) await queue.add("tackle-job", jobData(number), { delay: 3_600_000, jobId: `metrics-${number}` });
  } finally {
    await queue.close();
  }
}

describe("tackle worker --port: /metrics", () => {
  it("serves the queue's counts from BullMQ (Tackle's gauges and BullMQ's export), and the process's, behind the bearer token", async () => {
    await addDelayedJobs();
    const port = await startWorker({ TACKLE_METRICS_TOKEN: TOKEN });
    const url = `http://127.0.0.1:${port}/metrics`;

    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer not-the-token-at-all" } })).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const samples = parseExposition(text);
    expect(samplesOf(samples, "tackle_queue_jobs")).toEqual({ "state=waiting": 0, "state=active": 0, "state=delayed": 2 });
    expect(sampleValue(samples, "tackle_queue_up")).toBe(1);
    expect(sampleValue(samples, "bullmq_job_count", { queue: "tackle-jobs", state: "delayed" })).toBe(2);
    expect(sampleValue(samples, "bullmq_job_count", { queue: "tackle-jobs", state: "active" })).toBe(0);
    expect(sampleValue(samples, "bullmq_job_completed_total", { queue: "tackle-jobs" })).toBe(0);
    expect(sampleValue(samples, "tackle_jobs_running")).toBe(0);
    // Node's own process metrics, under their standard names.
    expect(sampleValue(samples, "process_cpu_seconds_total")).toBeGreaterThan(0);
    const families = familyNames(text);
    expect(new Set(families).size).toBe(families.length);
  }, 180_000);

  it("without a token, /metrics is open; it still reads the queue when the counts change", async () => {
    const port = await startWorker({});
    const read = async () => parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    expect(samplesOf(await read(), "tackle_queue_jobs")).toEqual({ "state=waiting": 0, "state=active": 0, "state=delayed": 0 });
    await addDelayedJobs();
    expect(sampleValue(await read(), "tackle_queue_jobs", { state: "delayed" })).toBe(2);
  }, 180_000);

  it("with Redis unreachable, a scrape still answers: tackle_queue_up 0 and no queue counts", async () => {
    const port = await startWorker({ REDIS_URL: "redis://127.0.0.1:1" });
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const samples = parseExposition(text);
    expect(sampleValue(samples, "tackle_queue_up")).toBe(0);
    expect(samplesOf(samples, "tackle_queue_jobs")).toEqual({});
    expect(text).not.toContain("bullmq_job_count{");
    expect(sampleValue(samples, "tackle_jobs_running")).toBe(0);
  }, 180_000);
});
