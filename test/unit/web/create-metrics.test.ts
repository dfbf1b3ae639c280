// The metrics module over the hooks the layers below offer: the tool registry's observer, the spend
// meter's charges, the observed model clients and the job wrapper, read back from the exposition text.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { toTackleError } from "../../../src/agent/anthropic-client.js";
import type { ModelClient, ModelMessage } from "../../../src/agent/model-client.js";
import { modelErrorKind } from "../../../src/agent/model-error-kind.js";
import { createSpend } from "../../../src/agent/spend.js";
import { createToolRegistry, defineTool, denyingApprovalHandler, type PolicyEngine, type Tool, type ToolCall } from "../../../src/agent/tools/index.js";
import type { ToolHooks } from "../../../src/agent/tools/tool-hooks.js";
import { TackleError } from "../../../src/errors/index.js";
import type { JobData } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createMetrics } from "../../../src/web/create-metrics.js";
import { serveMetrics } from "../../../src/web/serve-metrics.js";
import { observedModels, sessionObservers } from "../../../src/worker/job-metrics.js";
import { createHarness, type Harness } from "../tools/helpers.js";
import { familyNames, parseExposition, samplesOf, sampleValue } from "./prometheus-text.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const REPO = "octo/widgets";

function tool(name: string, execute: () => Promise<{ content: string; isError?: boolean }>): Tool {
  return defineTool({ name, description: name, inputSchema: z.object({ n: z.number().optional().describe("n") }), effects: { session: true }, execute });
}

const ok = () => Promise.resolve({ content: "fine" });

/** Denies `Guarded`, asks for `Asking`, allows the rest. */
const policy: PolicyEngine = {
  check: async (t) =>
    t.name === "Guarded"
      ? { action: "deny", reason: "guarded" }
      : t.name === "Asking"
        ? { action: "ask", reason: "asks", approvalKey: "k" }
        : { action: "allow" },
  noteOutsideText: () => undefined,
};

/** A PreToolUse hook that denies `Hooked`. */
const hooks: ToolHooks = {
  applies: (name) => name === "Hooked",
  preToolUse: async () => ({ denied: "not here", notes: [] }),
  postToolUse: async () => [],
};

const calls = (...names: string[]): ToolCall[] => names.map((name, i) => ({ id: `c${i}`, name, input: {} }));

describe("the metrics module", () => {
  it("counts the registry's calls by tool and outcome, denials by who refused, and a sandbox that failed in a tool", async () => {
    const metrics = createMetrics();
    const observers = sessionObservers(metrics.jobs, REPO);
    const tools = [
      tool("Read", ok),
      tool("Broken", () => Promise.resolve({ content: "no", isError: true })),
      tool("Boxed", () => Promise.reject(new TackleError("sandbox_unavailable", "bubblewrap: cannot start"))),
      tool("Guarded", ok),
      tool("Asking", ok),
      tool("Hooked", ok),
      tool("mcp__tracker__search", ok),
      tool("skill__release__bump", ok),
    ];
    const registry = createToolRegistry(tools, { policy, approval: denyingApprovalHandler, hooks, observer: observers.onToolCall });
    const results = await registry.runCalls(
      [
        ...calls("Read", "Read", "Broken", "Boxed", "Guarded", "Asking", "Hooked", "mcp__tracker__search", "skill__release__bump", "Invented"),
        { id: "bad", name: "Read", input: { n: "not a number" } },
      ],
      h.ctx,
    );
    expect(results.map((r) => r.is_error)).toEqual([false, false, true, true, true, true, true, false, false, true, true]);

    const text = (await metrics.exposition()).body;
    const samples = parseExposition(text);
    expect(samplesOf(samples, "tackle_tool_calls_total")).toEqual({
      "outcome=ok,tool=Read": 2,
      "outcome=invalid,tool=Read": 1,
      "outcome=error,tool=Broken": 1,
      "outcome=error,tool=Boxed": 1,
      "outcome=denied,tool=Guarded": 1,
      "outcome=denied,tool=Asking": 1,
      "outcome=denied,tool=Hooked": 1,
      "outcome=ok,tool=mcp": 1,
      "outcome=ok,tool=skill": 1,
      "outcome=invalid,tool=unknown": 1,
    });
    expect(samplesOf(samples, "tackle_tool_denials_total")).toEqual({
      "by=policy,tool=Guarded": 1,
      "by=approval,tool=Asking": 1,
      "by=hook,tool=Hooked": 1,
    });
    expect(samplesOf(samples, "tackle_sandbox_failures_total")).toEqual({ "stage=tool": 1 });
    // Each family once, every name Tackle's own.
    const families = familyNames(text);
    expect(new Set(families).size).toBe(families.length);
    expect(families.every((name) => name.startsWith("tackle_"))).toBe(true);
  });

  it("counts each response's tokens and cost by repository from the spend meter", async () => {
    const metrics = createMetrics();
    const spend = createSpend({ onCharge: sessionObservers(metrics.jobs, REPO).onCharge });
    const first = spend.add("claude-sonnet-4-6", { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 5000, cache_creation_input_tokens: 300 });
    const second = spend.add("claude-sonnet-4-6", { input_tokens: 10, output_tokens: 20 });
    const samples = parseExposition((await metrics.exposition()).body);
    expect(samplesOf(samples, "tackle_model_tokens_total")).toEqual({
      "kind=input,repository=octo/widgets": 1010,
      "kind=output,repository=octo/widgets": 220,
      "kind=cache_read,repository=octo/widgets": 5000,
      "kind=cache_write,repository=octo/widgets": 300,
    });
    expect(sampleValue(samples, "tackle_model_cost_usd_total", { repository: REPO })).toBeCloseTo(first + second, 12);
    expect(spend.costUsd).toBeCloseTo(first + second, 12);
  });

  it("times the job's first model request once, and counts failed calls by kind but not aborts", async () => {
    const metrics = createMetrics();
    const failures = [
      toTackleError(APIError.generate(429, { type: "error", error: { type: "rate_limit_error" } }, "slow down", new Headers())),
      toTackleError(APIError.generate(400, { type: "error", error: { type: "invalid_request_error" } }, "bad", new Headers())),
      new TackleError("aborted", "stopped"),
    ];
    const client: ModelClient = {
      name: "scripted",
      create: async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return { usage: { input_tokens: 1, output_tokens: 1 } } as unknown as ModelMessage;
      },
    };
    let now = 10_000;
    const models = observedModels(() => client, metrics.jobs, { since: 7_500, clock: () => now, reportFirst: true });
    const signal = new AbortController().signal;
    const request = { model: "m", max_tokens: 1, messages: [] };
    for (const modelName of ["m", "m", "other", "m"]) {
      await models(modelName)
        .create(request, signal)
        .catch(() => undefined);
      now += 60_000;
    }
    const samples = parseExposition((await metrics.exposition()).body);
    expect(sampleValue(samples, "tackle_first_model_request_seconds_count")).toBe(1);
    expect(sampleValue(samples, "tackle_first_model_request_seconds_sum")).toBe(2.5);
    expect(sampleValue(samples, "tackle_first_model_request_seconds_bucket", { le: "2.5" })).toBe(1);
    expect(sampleValue(samples, "tackle_first_model_request_seconds_bucket", { le: "1" })).toBe(0);
    expect(samplesOf(samples, "tackle_model_errors_total")).toEqual({ "kind=rate_limited": 1, "kind=request": 1 });
  });

  it("names model failures by their structure", () => {
    const status = (code: number) => toTackleError(APIError.generate(code, undefined, "x", new Headers()));
    expect([429, 529, 408, 500, 503, 401, 403, 400, 404].map((code) => modelErrorKind(status(code)))).toEqual([
      "rate_limited",
      "overloaded",
      "timeout",
      "server",
      "server",
      "auth",
      "auth",
      "request",
      "request",
    ]);
    expect(modelErrorKind(toTackleError(new APIConnectionError({ message: "refused" })))).toBe("connection");
    expect(modelErrorKind(toTackleError(new APIConnectionTimeoutError()))).toBe("timeout");
    const event = (type: string) => toTackleError(new APIError(undefined, { type: "error", error: { type } }, "x", undefined, type as never));
    expect(modelErrorKind(event("overloaded_error"))).toBe("overloaded");
    expect(modelErrorKind(event("something_new"))).toBe("stream");
    expect(modelErrorKind(new TackleError("model_api", "Anthropic stream cut: socket hang up", { retryable: true, cause: new Error("socket hang up") }))).toBe(
      "stream",
    );
    expect(modelErrorKind(new TackleError("replay_exhausted", "no more"))).toBe("replay");
    expect(modelErrorKind(new TackleError("aborted", "stopped"))).toBeNull();
  });

  it("counts job runs by outcome (retry when one throws), their durations, and none left running", async () => {
    let now = 0;
    const metrics = createMetrics({ clock: () => now });
    const data = { repo: { owner: "octo", name: "widgets" } } as JobData;
    await metrics.observeJob(data, async () => {
      now += 42;
      return { status: "done" };
    });
    await expect(
      metrics.observeJob(data, async () => {
        now += 3;
        throw new TackleError("model_api", "down", { retryable: true });
      }),
    ).rejects.toThrow("down");
    const samples = parseExposition((await metrics.exposition()).body);
    expect(samplesOf(samples, "tackle_jobs_total")).toEqual({ "outcome=done,repository=octo/widgets": 1, "outcome=retry,repository=octo/widgets": 1 });
    expect(sampleValue(samples, "tackle_job_duration_seconds_sum", { outcome: "done" })).toBe(42);
    expect(sampleValue(samples, "tackle_job_duration_seconds_count", { outcome: "retry" })).toBe(1);
    expect(sampleValue(samples, "tackle_jobs_running")).toBe(0);
    // No queue watched: no queue gauges rather than made-up zeros.
    expect(sampleValue(samples, "tackle_queue_jobs")).toBeUndefined();
  });
});

describe("GET /metrics", () => {
  const TOKEN = "metrics-token-0123456789";
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function serve(token: string | null): Promise<string> {
    const metrics = createMetrics();
    metrics.acknowledged(0.3);
    server = http.createServer((req, res) => {
      if (!serveMetrics(req, res, { metrics, token, logger: silentLogger })) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("with a token: 401 without it, with another or another scheme; 200 with the bearer token, in any case of the scheme", async () => {
    const base = await serve(TOKEN);
    const status = async (authorization?: string) => (await fetch(`${base}/metrics`, authorization === undefined ? {} : { headers: { authorization } })).status;
    expect(await status()).toBe(401);
    expect(await status(`Bearer ${TOKEN}x`)).toBe(401);
    expect(await status(`Bearer ${TOKEN.slice(0, -1)}`)).toBe(401);
    expect(await status(`Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}`)).toBe(401);
    expect(await status(TOKEN)).toBe(401);
    const denied = await fetch(`${base}/metrics`);
    expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await denied.text()).not.toContain(TOKEN);

    const allowed = await fetch(`${base}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sampleValue(parseExposition(await allowed.text()), "tackle_acknowledgement_seconds_count")).toBe(1);
  });

  it("without a token: open to GET, and only at /metrics", async () => {
    const base = await serve(null);
    expect((await fetch(`${base}/metrics?format=text`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${base}/metricsx`)).status).toBe(404);
  });
});
