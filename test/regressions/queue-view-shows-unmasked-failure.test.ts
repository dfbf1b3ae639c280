// A job whose attempt fails in a way the queue retries (a model API error, a GitHub 5xx) rethrew the
// error as it was to BullMQ, which keeps its message as the job's `failedReason` and its stack in
// `stacktrace`. The queue view (@bull-board at /dashboard/queues) shows both on the job's page, so a
// secret in the error's text (here the model key and an operator's TACKLE_SECRET_ value, echoed by the
// model API's error body) reached the dashboard unmasked, while the tracking comment, the job store's
// reason and the log masked it.
//
// Fix: processJob rethrows a copy of the error whose message and stack went through the job's redactor
// (same code and retryable flag, the original as its cause), so what BullMQ stores is masked.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../fakes/index.js";
import { startOwnRedis, type OwnRedis } from "../integration/queue/redis-server.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { firstUserText } from "../integration/e2e/script-helpers.js";
import { assign } from "../integration/e2e/trigger-helpers.js";

const TOKEN = `dash-${randomBytes(16).toString("hex")}`;
const CANARY = `canary-${randomBytes(12).toString("hex")}`;
const TITLE = "The model API echoes what it was sent";
let modelKey = "";

async function script(request: Record<string, unknown>): Promise<ScriptedTurn | { error: { status: number; message: string } }> {
  if (firstUserText(request).includes(TITLE)) return { error: { status: 500, message: `upstream rejected key ${modelKey} with header ${CANARY}` } };
  return { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }], stop_reason: "tool_use" };
}

let redis: OwnRedis;
let h: Harness;

beforeAll(async () => {
  redis = await startOwnRedis();
  h = await startHarness({
    script: script as never,
    withWorker: true,
    extraEnv: { REDIS_URL: redis.url, TACKLE_DASHBOARD_TOKEN: TOKEN, TACKLE_SECRET_CANARY: CANARY },
  });
  modelKey = h.model.apiKey;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

describe("the queue view of a job whose attempt failed", () => {
  it("shows the failure masked, never the job's secrets", { timeout: 120_000 }, async () => {
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: TITLE });
    expect((await assign(h, issue.number)).status).toBe(200);
    const base = h.webhookUrl.replace(/\/api\/github\/webhooks$/, "");
    const get = async (path: string) => {
      const response = await fetch(`${base}/dashboard/queues/api${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    // Wait for the first attempt to fail (the queue then waits through its backoff before the next).
    let job: { failedReason?: string; stacktrace?: string[] } | undefined;
    for (let i = 0; i < 600 && !job?.failedReason; i++) {
      const queues = (await get("/queues?activeQueue=tackle-jobs&status=latest")) as { queues: Array<{ jobs: Array<{ id: string }> }> };
      const id = queues.queues[0]?.jobs[0]?.id;
      if (id !== undefined) job = ((await get(`/queues/tackle-jobs/${encodeURIComponent(id)}`)) as { job: typeof job }).job;
      if (!job?.failedReason) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job?.failedReason).toContain("upstream rejected key");
    const shown = JSON.stringify(job);
    expect(shown).toContain("[REDACTED]");
    expect(shown).not.toContain(modelKey);
    expect(shown).not.toContain(CANARY);
  });
});
