// Fault tests of the job engine through signed webhooks: duplicates, bursts, rate limits, closed issues,
// invalid config, Redis going away.
import { afterEach, describe, expect, it } from "vitest";
import { issueCommentCreatedPayload } from "../../fakes/index.js";
import { startOwnRedis, type OwnRedis } from "../queue/redis-server.js";
import { fixTemperatureScript, OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { firstUserText, gate, perJobScript, turnIndex } from "./script-helpers.js";
import { assign, botComments, deliver } from "./trigger-helpers.js";

let h: Harness | undefined;
let redis: OwnRedis | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await redis?.stop();
  redis = undefined;
});

const conversations = (harness: Harness) =>
  harness.model.requests.filter((r) => turnIndex(r.body) === 0 && Array.isArray((r.body as { tools?: unknown[] }).tools));

describe("job engine faults", () => {
  it("the same delivery twice runs one job", async () => {
    h = await startHarness({ script: perJobScript(fixTemperatureScript()) });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    const [a, b] = await Promise.all([assign(h, issue.number, { deliveryId: "same-delivery" }), assign(h, issue.number, { deliveryId: "same-delivery" })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await h.app.queue.idle();
    expect(conversations(h)).toHaveLength(1);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(botComments(h, issue.number)).toHaveLength(1);
  });

  it("a burst of five comments on one issue: one active job and one pending that carries the other four, in order", async () => {
    const hold = gate();
    let waiting = 0;
    h = await startHarness({
      script: perJobScript(fixTemperatureScript(), {
        hold: async () => {
          waiting += 1;
          if (waiting === 1) await hold.wait();
        },
      }),
    });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    const comment = (n: number) =>
      deliver(
        h!,
        "issue_comment",
        issueCommentCreatedPayload({
          ...h!.gh.repoContext(OWNER, REPO),
          issueNumber: issue.number,
          commentBody: `@tackle step ${n}: please handle part ${n}`,
          commentId: 9000 + n,
          commenter: "alice",
        }),
      );
    expect((await comment(1)).status).toBe(200);
    // The first job is now waiting on the model; the next four arrive while it runs.
    await expect.poll(() => waiting, { timeout: 15_000 }).toBe(1);
    for (const n of [2, 3, 4, 5]) expect((await comment(n)).status).toBe(200);
    hold.open();
    await h.app.queue.idle();

    const starts = conversations(h);
    expect(starts).toHaveLength(2);
    expect(firstUserText(starts[0]!.body)).toContain("step 1");
    const second = firstUserText(starts[1]!.body);
    const positions = [2, 3, 4, 5].map((n) => second.indexOf(`step ${n}`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(second).not.toContain("step 1:");
    // Two jobs, two tracking comments: merged triggers get 👀 but no comment of their own.
    expect(botComments(h, issue.number).filter((c) => c.body.includes("tackle:tracking"))).toHaveLength(2);
    // The pending job's comment said where it stood in the queue before it started.
    const posted = h.gh.requests({ method: "POST", path: /\/issues\/\d+\/comments$/ }).map((r) => (r.body as { body?: string } | undefined)?.body ?? "");
    expect(posted.some((body) => /queued this job: position 2 in the queue/.test(body))).toBe(true);
  });

  it("a 403 secondary rate limit with retry-after is waited out by the throttling plugin", async () => {
    h = await startHarness({ script: perJobScript(fixTemperatureScript()), octokit: { throttle: true, retry: true } });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    h.gh.failNext({ count: 1, secondaryRateLimit: true, retryAfter: 1, match: { method: "POST", pathRegex: /\/pulls$/ } });
    await assign(h, issue.number);
    await h.app.queue.idle();
    const creates = h.gh.requests({ method: "POST", path: /\/repos\/octo\/widgets\/pulls$/ });
    expect(creates.map((r) => r.status)).toEqual([403, 201]);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(900);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(botComments(h, issue.number)[0]!.body).toContain("Tackle finished");
  }, 90_000);

  it("an issue closed before its job runs is a no-op with a note", async () => {
    h = await startHarness({ script: perJobScript(fixTemperatureScript()) });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Already fixed", state: "closed" });
    await assign(h, issue.number);
    await h.app.queue.idle();
    expect(h.model.requests).toHaveLength(0);
    expect(h.gh.requests({ kind: "git" })).toHaveLength(0);
    const comments = botComments(h, issue.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toMatch(/closed before the job ran/);
  });

  it("an invalid .github/tackle.yml gets one comment naming each bad key, and the agent does not run", async () => {
    h = await startHarness({ script: perJobScript(fixTemperatureScript()) });
    await h.gh.commitFiles(OWNER, REPO, "main", {
      ".github/tackle.yml": "max_turns: -3\nprotected_pathz: [secrets/**]\nmodel: 42\n",
    });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Fix it" });
    await assign(h, issue.number);
    await h.app.queue.idle();
    expect(h.model.requests).toHaveLength(0);
    const comments = botComments(h, issue.number);
    const problem = comments.find((c) => c.body.includes("could not use"));
    expect(problem?.body).toContain("max_turns");
    expect(problem?.body).toContain("protected_pathz");
    expect(problem?.body).toContain("model");
    const tracking = comments.find((c) => c.body.includes("tackle:tracking"));
    expect(tracking?.body).toContain("Tackle failed");
    expect(comments).toHaveLength(2);
  });

  it("comments name the App's command (TACKLE_BOT_NAME), not a hard-coded /tackle", async () => {
    h = await startHarness({ script: perJobScript(fixTemperatureScript()), extraEnv: { TACKLE_BOT_NAME: "robot" } });
    await h.gh.commitFiles(OWNER, REPO, "main", { ".github/tackle.yml": "max_turns: -3\n" });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Fix it" });
    await assign(h, issue.number);
    await h.app.queue.idle();
    const problem = botComments(h, issue.number).find((c) => c.body.includes("could not use"));
    expect(problem?.body).toContain("`/robot retry`");
    expect(problem?.body).not.toContain("`/tackle ");
  });

  it("Redis down: the webhook answers 503 at once and nothing is posted; after a restart deliveries run again", async () => {
    redis = await startOwnRedis();
    h = await startHarness({
      script: perJobScript(fixTemperatureScript()),
      extraEnv: { REDIS_URL: redis.url },
      withWorker: true,
      queueOptions: { lockDurationMs: 2000, stalledIntervalMs: 1000 },
    });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    await redis.stop();
    // Redis stays down until this answer is in: a handler that waited for it to come back would never
    // answer (the test would time out), so the 503 is the handler giving up on its own, not a clock.
    const down = await assign(h, issue.number, { deliveryId: "while-down" });
    expect(down.status).toBe(503);
    expect((await fetch(h.webhookUrl.replace("/api/github/webhooks", "/readyz"))).status).toBe(503);
    // The acknowledgement was withdrawn: no comment is left claiming a queued job.
    expect(botComments(h, issue.number)).toHaveLength(0);

    await redis.start();
    await expect.poll(async () => (await fetch(h!.webhookUrl.replace("/api/github/webhooks", "/readyz"))).status, { timeout: 15_000 }).toBe(200);
    // GitHub's redelivery carries the same delivery id; it was never queued, so it runs now.
    const again = await assign(h, issue.number, { deliveryId: "while-down" });
    expect(again.status).toBe(200);
    await expect.poll(() => botComments(h!, issue.number).some((c) => c.body.includes("Tackle finished")), { timeout: 60_000 }).toBe(true);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
  }, 120_000);
});
