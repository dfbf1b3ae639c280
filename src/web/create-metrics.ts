import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ToolCallEvent } from "../agent/tools/registry.js";
import type { JobData } from "../jobs/job-data.js";
import type { Queue } from "../jobs/queue.js";
import type { JobMetrics } from "../worker/index.js";

/** What `/metrics` serves: Prometheus's text format and its content type. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

/** One process's metrics: `tackle server` and each `tackle worker` have their own. */
export interface TackleMetrics {
  /** The port processJob reports through (model calls, tokens and cost, tool calls, sandbox failures). */
  readonly jobs: JobMetrics;
  /** The webhook side put 👀 on a trigger, `seconds` after the delivery arrived. */
  acknowledged(seconds: number): void;
  /**
   * Runs one attempt of a job, counted as running meanwhile, then by its outcome (`retry` when it
   * threw for the queue to run it again) and its duration.
   */
  observeJob<T extends { status: string }>(data: JobData, run: () => Promise<T>): Promise<T>;
  /** Reads `queue`'s counts at every scrape (and, for BullMQ, appends BullMQ's own export). */
  watchQueue(queue: Queue): void;
  /** The text a scrape gets. */
  exposition(): Promise<MetricsExposition>;
}

export interface CreateMetricsOptions {
  /** Node's own process metrics (CPU, memory, event loop lag, GC), under their standard names. @defaultValue false */
  processMetrics?: boolean;
  /** Seconds, for job durations. @defaultValue performance.now() / 1000 */
  clock?: () => number;
}

const SECOND_BUCKETS = {
  job: [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
  acknowledgement: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  firstRequest: [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600],
};

/**
 * The process's registry (its own, not prom-client's global one, so several apps in one process —
 * tests — never share counters) and the metrics Tackle reports, every name prefixed `tackle_`.
 * Labels stay few: repository (`owner/name`), outcome, tool (MCP and skill tools folded into `mcp`
 * and `skill`, unknown names into `unknown`), and fixed words.
 */
export function createMetrics(options: CreateMetricsOptions = {}): TackleMetrics {
  const registry = new Registry();
  if (options.processMetrics === true) collectDefaultMetrics({ register: registry });
  const clock = options.clock ?? (() => performance.now() / 1000);
  const registers = [registry];

  const jobsTotal = new Counter({
    name: "tackle_jobs_total",
    help: "Job runs in this process by how they ended (done, no_changes, failed, cancelled, budget_exhausted; retry: thrown back to the queue)",
    labelNames: ["repository", "outcome"] as const,
    registers,
  });
  const jobDuration = new Histogram({
    name: "tackle_job_duration_seconds",
    help: "How long each job run in this process took, by outcome",
    labelNames: ["outcome"] as const,
    buckets: SECOND_BUCKETS.job,
    registers,
  });
  const jobsRunning = new Gauge({ name: "tackle_jobs_running", help: "Jobs running in this process now", registers });
  const acknowledgement = new Histogram({
    name: "tackle_acknowledgement_seconds",
    help: "From a webhook delivery to the 👀 reaction on its trigger",
    buckets: SECOND_BUCKETS.acknowledgement,
    registers,
  });
  const firstRequest = new Histogram({
    name: "tackle_first_model_request_seconds",
    help: "From a trigger's delivery to its job's first model request (queue wait and workspace included)",
    buckets: SECOND_BUCKETS.firstRequest,
    registers,
  });
  const tokens = new Counter({
    name: "tackle_model_tokens_total",
    help: "Model tokens by repository and kind (input: uncached input; cache_read; cache_write; output)",
    labelNames: ["repository", "kind"] as const,
    registers,
  });
  const cost = new Counter({
    name: "tackle_model_cost_usd_total",
    help: "Model cost in US dollars by repository, at the price table's rates",
    labelNames: ["repository"] as const,
    registers,
  });
  const modelErrors = new Counter({
    name: "tackle_model_errors_total",
    help: "Model calls that failed after the client's retries, by kind",
    labelNames: ["kind"] as const,
    registers,
  });
  const toolCalls = new Counter({
    name: "tackle_tool_calls_total",
    help: "Tool calls by tool and outcome (ok, error, denied, invalid)",
    labelNames: ["tool", "outcome"] as const,
    registers,
  });
  const toolDenials = new Counter({
    name: "tackle_tool_denials_total",
    help: "Tool calls refused, by tool and by whom (policy, hook, approval)",
    labelNames: ["tool", "by"] as const,
    registers,
  });
  const sandboxFailures = new Counter({
    name: "tackle_sandbox_failures_total",
    help: "Sandboxes that could not start, for a tool call (tool) or a job's workspace or setup (job)",
    labelNames: ["stage"] as const,
    registers,
  });
  const queueJobs = new Gauge({
    name: "tackle_queue_jobs",
    help: "Jobs in the queue by state (waiting, active, delayed), across every process of the queue",
    labelNames: ["state"] as const,
    registers,
  });
  const queueUp = new Gauge({ name: "tackle_queue_up", help: "1 when the queue's counts could be read at this scrape, else 0", registers });

  const jobs: JobMetrics = {
    firstModelRequest: (seconds) => firstRequest.observe(seconds),
    modelError: (kind) => modelErrors.inc({ kind }),
    modelUsage(repository, usage, costUsd) {
      for (const [kind, count] of [
        ["input", usage.input],
        ["output", usage.output],
        ["cache_read", usage.cacheRead],
        ["cache_write", usage.cacheWrite],
      ] as const) {
        if (count > 0) tokens.inc({ repository, kind }, count);
      }
      if (costUsd > 0) cost.inc({ repository }, costUsd);
    },
    toolCall(event: ToolCallEvent) {
      const tool = toolLabel(event.tool);
      toolCalls.inc({ tool, outcome: event.outcome });
      if (event.outcome === "denied") toolDenials.inc({ tool, by: event.deniedBy ?? "policy" });
    },
    sandboxFailure: (stage) => sandboxFailures.inc({ stage }),
  };

  const watched: Queue[] = [];
  /** The queue's counts into the gauges; BullMQ's own text to append, when it has one. */
  const readQueues = async (): Promise<string> => {
    if (watched.length === 0) return "";
    queueJobs.reset();
    const extra: string[] = [];
    try {
      for (const queue of watched) {
        const counts = await queue.counts();
        for (const [state, count] of Object.entries(counts)) queueJobs.inc({ state }, count);
        if (queue.exportPrometheusMetrics) extra.push(await queue.exportPrometheusMetrics());
      }
      queueUp.set(1);
    } catch {
      // Redis unreachable: the gauges say so rather than failing the whole scrape.
      queueJobs.reset();
      queueUp.set(0);
      return "";
    }
    return extra.map((text) => `${text.trimEnd()}\n`).join("");
  };

  return {
    jobs,
    acknowledged: (seconds) => acknowledgement.observe(seconds),
    async observeJob(data, run) {
      const repository = `${data.repo.owner}/${data.repo.name}`;
      const started = clock();
      jobsRunning.inc();
      let outcome = "retry";
      try {
        const result = await run();
        outcome = result.status;
        return result;
      } finally {
        jobsRunning.dec();
        jobsTotal.inc({ repository, outcome });
        jobDuration.observe({ outcome }, Math.max(0, clock() - started));
      }
    },
    watchQueue: (queue) => void watched.push(queue),
    async exposition() {
      const bullmq = await readQueues();
      return { contentType: registry.contentType, body: (await registry.metrics()) + bullmq };
    },
  };
}

/** Tool names as labels: the contract's tools by name; repository-defined ones folded, so the label set stays small. */
function toolLabel(tool: string | null): string {
  if (tool === null) return "unknown";
  if (tool.startsWith("mcp__")) return "mcp";
  if (tool.startsWith("skill__")) return "skill";
  return tool;
}
