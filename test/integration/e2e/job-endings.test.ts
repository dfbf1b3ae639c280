// processJob's endings that the queue depends on: a model outage is retried (work kept, same comment)
// until the last attempt, and a job the queue gave up on still gets its final word.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import type { JobData } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createJobRuntime } from "../../../src/main/runtime.js";
import { processJob, reportDeadJob, type ProcessJobDeps } from "../../../src/worker/process-job.js";
import { renderTrackingComment } from "../../../src/worker/tracking-comment.js";
import { startFakeAnthropic, startFakeGitHub, type FakeAnthropic, type FakeGitHub } from "../../fakes/index.js";
import { demoRepoFiles, OWNER, REPO } from "./harness.js";

let gh: FakeGitHub | undefined;
let model: FakeAnthropic | undefined;
let home: string | undefined;
afterEach(async () => {
  await model?.close();
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

async function setup(script: Parameters<typeof startFakeAnthropic>[0]): Promise<{ deps: ProcessJobDeps; data: JobData }> {
  gh = await startFakeGitHub();
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
  model = await startFakeAnthropic(script, { minCacheableTokens: 0 });
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-endings-"));
  const runtime = await createJobRuntime(
    { ...gh.appEnv(), ...model.env(), TACKLE_HOME: home, PATH: process.env.PATH ?? "" },
    { mode: "server", logger: silentLogger, octokit: { throttle: false, retry: false } },
  );
  const fake = model;
  // No SDK retries: each attempt meets the outage once.
  const deps: ProcessJobDeps = { ...runtime.deps, model: () => createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 }) };
  const jobId = "octo-widgets-1-job";
  const data: JobData = {
    jobId,
    deliveryId: "d-1",
    installationId: gh.installationId(OWNER),
    repo: { owner: OWNER, name: REPO },
    number: issue.number,
    isPullRequest: false,
    trigger: { kind: "issue_assigned", actor: "alice" },
    enqueuedAt: new Date().toISOString(),
  };
  return { deps, data };
}

const outage = { error: { status: 500, type: "api_error", message: "Internal server error" } } as const;
const trackingComments = () => gh!.comments(OWNER, REPO, 1).filter((c) => c.body.includes("tackle:tracking"));

describe("job endings", () => {
  it("a model outage is retried while attempts remain, editing one tracking comment, then fails for good", async () => {
    const { deps, data } = await setup([outage, outage]);
    const controller = new AbortController();
    const first = await processJob(data, deps, controller.signal, { attempt: 1, maxAttempts: 2 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isTackleError(first) && first.retryable).toBe(true);
    expect(trackingComments()).toHaveLength(1);
    expect(trackingComments()[0]!.body).toMatch(/attempt 1 of 2; will retry/);

    const last = await processJob(data, deps, controller.signal, { attempt: 2, maxAttempts: 2 });
    expect(last.status).toBe("failed");
    const comments = trackingComments();
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("Tackle failed");
    expect(comments[0]!.body).not.toMatch(/will retry/);
  });

  it("a job the queue gave up on gets a final edit of its tracking comment with the way to restart it", async () => {
    const { deps, data } = await setup([]);
    const body = renderTrackingComment({ phase: "working", step: "running tests", todos: [], startedAt: Date.now() }, data.jobId);
    const created = gh!.addComment({ owner: OWNER, repo: REPO, issueNumber: data.number, body, user: gh!.botLogin });
    await reportDeadJob(data, deps, "job stalled more than allowable limit");
    const comments = trackingComments();
    expect(comments).toHaveLength(1);
    expect(comments[0]!.id).toBe(created.id);
    expect(comments[0]!.body).toContain("Tackle failed");
    expect(comments[0]!.body).toContain("/tackle retry");
  });
});
