// Twelve assignments at once on one installation, two workers on BullMQ, production Octokit settings
// (GitHub's write spacing: the acknowledgements queue up behind each other), and Redis restarted in
// the middle. The workers must not sit idle behind the comment backlog, and every issue must end with
// exactly one tracking comment, in a final state.
import { afterEach, describe, expect, it } from "vitest";
import { startOwnRedis, type OwnRedis } from "../queue/redis-server.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { perJobScript, turnIndex } from "./script-helpers.js";
import { assign, botComments } from "./trigger-helpers.js";

let h: Harness | undefined;
let redis: OwnRedis | undefined;
afterEach(async () => {
  await h?.close();
  await redis?.stop();
  h = undefined;
  redis = undefined;
});

const FINAL = /Tackle finished|Tackle failed|Tackle was stopped|Tackle ran out of budget/;

describe("a burst on one installation", () => {
  it("twelve assignments, two workers, Redis restarted mid-burst: work starts before the comments are out, and each issue ends with one final tracking comment", async () => {
    // A restart that keeps its data (append-only file), as a production Redis for BullMQ does.
    redis = await startOwnRedis({ persistent: true });
    h = await startHarness({
      script: perJobScript([{ content: [{ type: "tool_use", name: "task_done", input: { summary: "Looked; nothing to change." } }], stop_reason: "tool_use" }]),
      extraEnv: { REDIS_URL: redis.url },
      withWorker: true,
      octokit: { throttle: true, retry: true },
      queueOptions: { lockDurationMs: 2000, stalledIntervalMs: 1000, concurrency: 2 },
    });
    const harness = h;
    const issues = Array.from({ length: 12 }, (_, i) => harness.gh.addIssue({ owner: OWNER, repo: REPO, title: `Burst ${i + 1} of 12` }));
    const sent = Date.now();
    const answers = await Promise.all(issues.map((issue) => assign(harness, issue.number)));
    expect(answers.map((a) => a.status)).toEqual(issues.map(() => 200));

    // The first model requests come while the acknowledgements are still queued behind GitHub's
    // spacing (one new comment per 3 s): the workers did not wait for them.
    await expect.poll(() => harness.model.requests.filter((r) => turnIndex(r.body) === 0).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
    const firstRequestAt = Math.min(...harness.model.requests.map((r) => r.at));
    const commentsByThen = harness.gh.requests({ method: "POST", path: /\/issues\/\d+\/comments$/ }).filter((r) => r.at <= firstRequestAt).length;
    expect(commentsByThen).toBeLessThan(12);
    expect(firstRequestAt - sent).toBeGreaterThan(0);
    // The job that reached the model first did so before its own tracking comment was out: before,
    // a job waited for its comment, so this could not happen.
    const firstRequest = harness.model.requests.find((r) => r.at === firstRequestAt)!;
    const firstIssue = issues.find((issue) => JSON.stringify(firstRequest.body.messages?.[0] ?? "").includes(issue.title))!;
    expect(firstIssue).toBeDefined();
    const ownComment = harness.gh.requests({ method: "POST", path: new RegExp(`/issues/${firstIssue.number}/comments$`) })[0];
    expect(ownComment === undefined || ownComment.at > firstRequestAt).toBe(true);

    // Redis goes away and comes back while jobs and acknowledgements are in flight.
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await redis.start();

    for (const issue of issues) {
      await expect
        .poll(
          () =>
            botComments(harness, issue.number)
              .filter((c) => c.body.includes("tackle:tracking"))
              .map((c) => FINAL.test(c.body)),
          { timeout: 180_000 },
        )
        .toEqual([true]);
    }
    // Exactly one tracking comment per issue, none left at "queued".
    for (const issue of issues) {
      const tracking = botComments(harness, issue.number).filter((c) => c.body.includes("tackle:tracking"));
      expect(tracking, `#${issue.number}`).toHaveLength(1);
      expect(tracking[0]!.body).not.toMatch(/queued/i);
    }
  }, 300_000);
});
