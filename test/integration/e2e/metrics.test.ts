/**
 * `/metrics` end to end: three signed webhooks on one repository run three jobs over the fakes — one
 * fixes the bug and opens a PR, one is refused a write to a protected path and ends without changes,
 * one meets a model error — and then a scrape of the server (with TACKLE_METRICS_TOKEN set) shows each
 * counter and histogram with the values those jobs imply: jobs by outcome, durations counted, 👀 and
 * first model requests timed, tokens and cost equal to what the fake model billed, the model error by
 * kind, tool calls and the denial by tool, and the in-process queue empty. Then a job whose sandbox
 * cannot start, counted as a sandbox failure.
 */
import { afterEach, describe, expect, it } from "vitest";
import { costOf } from "../../../src/agent/pricing.js";
import { TackleError } from "../../../src/errors/index.js";
import { createMetrics } from "../../../src/web/create-metrics.js";
import { processJob } from "../../../src/worker/index.js";
import type { ScriptedBlock, ScriptedModel, ScriptedTurn } from "../../fakes/index.js";
import { familyNames, parseExposition, samplesOf, sampleValue, type Sample } from "../../unit/web/prometheus-text.js";
import { fixTemperatureScript, OWNER, REPO, startHarness, startJobWorld, type Harness, type JobWorld } from "./harness.js";
import { firstUserText, turnIndex } from "./script-helpers.js";
import { assign, botComments } from "./trigger-helpers.js";

const TOKEN = "metrics-e2e-token-6f1c2a9b";
const REPOSITORY = `${OWNER}/${REPO}`;

const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

const FIX = "celsiusToFahrenheit(100) returns 203";
const WORKFLOW = "Run the tests on every push";
const BROKEN = "Summarise the changelog";

/** Each job's conversation, chosen by the issue title in its task message. */
const SESSIONS: Record<string, ScriptedTurn[]> = {
  [FIX]: fixTemperatureScript(),
  [WORKFLOW]: [
    turn({ type: "tool_use", name: "Write", input: { file_path: ".github/workflows/ci.yml", content: "on: push\n" } }),
    turn({ type: "tool_use", name: "task_done", input: { summary: "Workflows are protected here; nothing changed." } }),
  ],
  [BROKEN]: [{ error: { status: 400, type: "invalid_request_error", message: "messages: the request is malformed" } }],
};

const script: ScriptedModel = (request) => {
  const task = firstUserText(request);
  const title = Object.keys(SESSIONS).find((t) => task.includes(t));
  const next = title === undefined ? undefined : SESSIONS[title]![turnIndex(request)];
  if (next === undefined) throw new Error(`no scripted turn for this request: ${task.slice(0, 200)}`);
  return next;
};

let h: Harness | undefined;
let world: JobWorld | undefined;
afterEach(async () => {
  await h?.close();
  await world?.close();
  h = world = undefined;
});

async function scrape(authorization?: string): Promise<Response> {
  const base = new URL(h!.webhookUrl).origin;
  return fetch(`${base}/metrics`, authorization === undefined ? {} : { headers: { authorization } });
}

async function samples(): Promise<{ text: string; samples: Sample[] }> {
  const response = await scrape(`Bearer ${TOKEN}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, samples: parseExposition(text) };
}

/** 👀 is added beside the enqueue: read until all three are counted (bounded). */
async function afterAcknowledgements(count: number): Promise<{ text: string; samples: Sample[] }> {
  for (let tries = 0; ; tries++) {
    const scraped = await samples();
    if (sampleValue(scraped.samples, "tackle_acknowledgement_seconds_count") === count || tries >= 100) return scraped;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("GET /metrics after jobs ran", () => {
  it("counts the jobs, their model calls, tokens, cost and tool calls as they happened, behind the bearer token", async () => {
    h = await startHarness({ script, extraEnv: { TACKLE_METRICS_TOKEN: TOKEN } });
    const harness = h;
    const issues = [FIX, WORKFLOW, BROKEN].map((title) => harness.gh.addIssue({ owner: OWNER, repo: REPO, title }));

    // Before any job, the token is already required; health checks stay open.
    expect((await scrape()).status).toBe(401);
    expect((await scrape(`Bearer ${TOKEN.toUpperCase()}`)).status).toBe(401);
    expect((await fetch(`${new URL(harness.webhookUrl).origin}/healthz`)).status).toBe(200);

    for (const issue of issues) expect((await assign(harness, issue.number)).status).toBe(200);
    await harness.app.queue.idle();

    const endings = issues.map((issue) => botComments(harness, issue.number).find((c) => c.body.includes("tackle:tracking"))?.body ?? "");
    expect(endings[0]).toContain("✅ Tackle finished");
    expect(harness.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(endings[2]).toContain("Tackle failed");

    const { text, samples: scraped } = await afterAcknowledgements(3);
    const value = (name: string, labels: Record<string, string> = {}) => sampleValue(scraped, name, labels);

    expect(samplesOf(scraped, "tackle_jobs_total")).toEqual({
      [`outcome=done,repository=${REPOSITORY}`]: 1,
      [`outcome=no_changes,repository=${REPOSITORY}`]: 1,
      [`outcome=failed,repository=${REPOSITORY}`]: 1,
    });
    for (const outcome of ["done", "no_changes", "failed"]) {
      expect(value("tackle_job_duration_seconds_count", { outcome })).toBe(1);
      expect(value("tackle_job_duration_seconds_bucket", { outcome, le: "+Inf" })).toBe(1);
    }
    expect(value("tackle_jobs_running")).toBe(0);
    expect(value("tackle_acknowledgement_seconds_count")).toBe(3);
    expect(value("tackle_first_model_request_seconds_count")).toBe(3);
    expect(value("tackle_first_model_request_seconds_bucket", { le: "+Inf" })).toBe(3);

    // Tokens and cost: exactly what the fake model billed for the answers it gave.
    const billed = harness.model.requests.filter((r) => r.status === 200 && r.usage !== undefined);
    const sum = (pick: (u: NonNullable<(typeof billed)[number]["usage"]>) => number) => billed.reduce((total, r) => total + pick(r.usage!), 0);
    expect(samplesOf(scraped, "tackle_model_tokens_total")).toEqual(
      Object.fromEntries(
        [
          ["input", sum((u) => u.input_tokens)],
          ["output", sum((u) => u.output_tokens)],
          ["cache_read", sum((u) => u.cache_read_input_tokens)],
          ["cache_write", sum((u) => u.cache_creation_input_tokens)],
        ]
          .filter(([, count]) => (count as number) > 0)
          .map(([kind, count]) => [`kind=${kind},repository=${REPOSITORY}`, count]),
      ),
    );
    const cost = billed.reduce((total, r) => total + costOf(String(r.body.model), r.usage!), 0);
    expect(cost).toBeGreaterThan(0);
    expect(value("tackle_model_cost_usd_total", { repository: REPOSITORY })).toBeCloseTo(cost, 9);

    expect(samplesOf(scraped, "tackle_model_errors_total")).toEqual({ "kind=request": 1 });
    expect(samplesOf(scraped, "tackle_tool_calls_total")).toEqual({
      "outcome=ok,tool=GetIssue": 1,
      "outcome=ok,tool=Read": 1,
      "outcome=ok,tool=Edit": 1,
      "outcome=ok,tool=Bash": 1,
      "outcome=ok,tool=git_commit": 1,
      "outcome=ok,tool=create_pull_request": 1,
      "outcome=ok,tool=task_done": 2,
      "outcome=denied,tool=Write": 1,
    });
    expect(samplesOf(scraped, "tackle_tool_denials_total")).toEqual({ "by=policy,tool=Write": 1 });
    expect(samplesOf(scraped, "tackle_sandbox_failures_total")).toEqual({});

    // The in-process queue, read at the scrape: nothing left, and no BullMQ section without BullMQ.
    expect(samplesOf(scraped, "tackle_queue_jobs")).toEqual({ "state=waiting": 0, "state=active": 0, "state=delayed": 0 });
    expect(value("tackle_queue_up")).toBe(1);
    expect(text).not.toContain("bullmq_");
    const families = familyNames(text);
    expect(new Set(families).size).toBe(families.length);
    expect(text).not.toContain(TOKEN);
  });

  it("counts a job whose sandbox could not start as a sandbox failure and a failed job", async () => {
    world = await startJobWorld(fixTemperatureScript());
    const metrics = createMetrics();
    const deps = {
      ...world.deps,
      metrics: metrics.jobs,
      // What the repo cache throws when bubblewrap cannot make the job's namespace.
      workspaces: {
        prepare: () =>
          Promise.reject(new TackleError("sandbox_unavailable", "cannot create the job's network namespace: bwrap: setting up uid map: Permission denied")),
      },
    };
    const outcome = await metrics.observeJob(world.data, () => processJob(world!.data, deps, new AbortController().signal));
    expect(outcome.status).toBe("failed");
    const scraped = parseExposition((await metrics.exposition()).body);
    expect(samplesOf(scraped, "tackle_sandbox_failures_total")).toEqual({ "stage=job": 1 });
    expect(samplesOf(scraped, "tackle_jobs_total")).toEqual({ [`outcome=failed,repository=${REPOSITORY}`]: 1 });
    // It never reached the model.
    expect(world.model.requests).toHaveLength(0);
    expect(sampleValue(scraped, "tackle_first_model_request_seconds_count")).toBe(0);
  });
});
