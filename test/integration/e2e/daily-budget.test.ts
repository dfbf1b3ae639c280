// Daily cost caps end to end: the job that finds its installation's day used up on another worker
// process (real BullMQ and the budget on a private Redis, the built `tackle worker` bin) ends
// budget_exhausted without a model call, with the reset time; and a repository's cap below the
// operator's binds that repository only (in-process queue and budget).
import { afterEach, describe, expect, it } from "vitest";
import { createDailyBudget } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { issuesAssignedPayload, sendWebhook, type ScriptedModel, type ScriptedTurn } from "../../fakes/index.js";
import { startOwnRedis } from "../queue/redis-server.js";
import { spawnCli, type CliProcess } from "./cli-process.js";
import { demoRepoFiles, OWNER, REPO, startHarness, tempDirIn, type Harness } from "./harness.js";
import { firstUserText } from "./script-helpers.js";
import { assign, botComments, setRepoConfig } from "./trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function harness(options: Parameters<typeof startHarness>[0]): Promise<Harness> {
  const h = await startHarness(options);
  cleanups.push(() => h.close());
  return h;
}

/**
 * One turn that ends the job and costs exactly `costUsd` on the default model (claude-sonnet-4-6,
 * $3 per million input tokens): what a job that spends the day's budget looks like to the ledger.
 */
function spendingTurn(costUsd: number): ScriptedTurn {
  return {
    content: [{ type: "tool_use", name: "task_done", input: { summary: "Looked into it." } }],
    usage: { input_tokens: Math.round((costUsd * 1_000_000) / 3), output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** Every conversation whose task names an issue title in `turns` gets that turn; any other is a failure. */
function byTitle(turns: Record<string, ScriptedTurn>): ScriptedModel {
  return (request) => {
    const task = firstUserText(request);
    const turn = Object.entries(turns).find(([title]) => task.includes(title))?.[1];
    if (turn === undefined) throw new Error(`no turn for the task:\n${task}`);
    return turn;
  };
}

const trackingComment = (h: Harness, issueNumber: number, repo = REPO): string =>
  h.gh.comments(OWNER, repo, issueNumber).find((c) => c.user === h.gh.botLogin && c.body.includes("<!-- tackle:tracking"))?.body ?? "";

const ended = (h: Harness, issueNumber: number, repo = REPO): boolean =>
  /Tackle (finished|ran out of budget|failed)/.test(trackingComment(h, issueNumber, repo));

async function waitFor(probe: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The model requests of the conversation about `title`. */
const requestsAbout = (h: Harness, title: string) => h.model.requests.filter((r) => firstUserText(r.body).includes(title));

/** "2031-01-16 00:00 UTC" for each UTC midnight that may follow a moment in [from, to]. */
function resetTimes(from: number, to: number): string[] {
  const day = 86_400_000;
  const midnight = (now: number) => `${new Date((Math.floor(now / day) + 1) * day).toISOString().slice(0, 10)} 00:00 UTC`;
  return [...new Set([midnight(from), midnight(to)])];
}

/** A `tackle worker` process (the built bin: dist/cli.js, or TACKLE_TEST_CLI) with its own TACKLE_HOME: another machine. */
async function startWorker(env: Record<string, string>, home: string): Promise<CliProcess> {
  const worker = spawnCli(["worker"], { env: { ...env, HOME: home, TACKLE_HOME: home, LOG_LEVEL: "info" }, cwd: home });
  cleanups.push(() => worker.stop("SIGKILL"));
  await worker.waitFor(/consuming bullmq jobs/);
  return worker;
}

describe("daily cost caps, end to end", () => {
  it("two worker processes: the first job spends the installation's day; the second, on the other worker, ends budget_exhausted with the reset time and no model call", async () => {
    const redis = await startOwnRedis();
    cleanups.push(() => redis.stop());
    const h = await harness({
      // The App in this process only enqueues: the jobs run in the worker processes.
      extraEnv: { REDIS_URL: redis.url, TACKLE_DAILY_BUDGET_USD: "0.60" },
      script: byTitle({ "Spend the day": spendingTurn(0.6), "One job too many": spendingTurn(0.01) }),
    });

    const workerA = await startWorker(h.env, await tempDirIn(cleanups, "tackle-budget-a-"));
    const first = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Spend the day" });
    const firstJob = `${OWNER}-${REPO}-${first.number}-budget-1`;
    expect((await assign(h, first.number, { deliveryId: "budget-1" })).status).toBe(200);
    await waitFor(() => ended(h, first.number), "the first job to end");
    expect(trackingComment(h, first.number)).toContain("Tackle finished");
    expect(trackingComment(h, first.number)).toContain("$0.60</sub>");
    // Its budget was clamped to the day's cap: the agent was told $0.60, not max_cost_usd's $5.
    const [firstRequest] = requestsAbout(h, "Spend the day");
    expect(JSON.stringify(firstRequest?.body)).toContain("$0.60 of $0.60 left");

    // B starts while A is up, then A goes: the second job can only run on B.
    const workerB = await startWorker(h.env, await tempDirIn(cleanups, "tackle-budget-b-"));
    await workerA.stop();
    expect(await workerA.exited()).toBe(0);

    const second = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "One job too many" });
    const secondJob = `${OWNER}-${REPO}-${second.number}-budget-2`;
    const before = Date.now();
    expect((await assign(h, second.number, { deliveryId: "budget-2" })).status).toBe(200);
    await waitFor(() => ended(h, second.number), "the second job to end");
    const after = Date.now();

    expect(workerA.output()).toContain(firstJob);
    expect(workerA.output()).not.toContain(secondJob);
    expect(workerB.output()).toContain(secondJob);
    const refusal = trackingComment(h, second.number);
    expect(refusal).toContain("⚠️ Tackle ran out of budget");
    expect(refusal).toContain(
      // The reason is shown inert: its code spans stay, its dollar signs are escaped (GitHub would read math).
      "Reason: this installation's daily budget (`TACKLE_DAILY_BUDGET_USD`) of \\$0.60 is used up (\\$0.60 spent, today in UTC), so the agent did not run. It resets at ",
    );
    const reset = /It resets at (\d{4}-\d\d-\d\d 00:00 UTC) \(in (?:\d+h )?\d+m\); comment `\/tackle retry` after that\./.exec(refusal);
    expect(reset).not.toBeNull();
    expect(resetTimes(before, after)).toContain(reset![1]);
    expect(requestsAbout(h, "One job too many")).toHaveLength(0);
    // No workspace work either: the job ended before the agent, and no PR or branch was made.
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(botComments(h, second.number).filter((c) => c.body.includes("tackle:tracking"))).toHaveLength(1);

    // What the workers recorded in Redis: the first job's cost, nothing held.
    const ledger = createDailyBudget({ redisUrl: redis.url, logger: silentLogger });
    cleanups.push(() => ledger.close());
    const usage = await ledger.usage({ installation: String(h.gh.installationId(OWNER)), repository: `${OWNER}/${REPO}`, now: after });
    expect(usage.installation).toEqual({ spentUsd: 0.6, heldUsd: 0 });
  }, 120_000);

  it("a repository's cap below the operator's binds that repository only, and is named in the refusal", async () => {
    const h = await harness({
      extraEnv: { TACKLE_DAILY_BUDGET_USD: "5" },
      script: byTitle({ "Widgets, first": spendingTurn(0.6), "Widgets, second": spendingTurn(0.01), "Gadgets work": spendingTurn(0.05) }),
    });
    await setRepoConfig(h, "daily_budget_usd: 0.5\n");
    const GADGETS = "gadgets";
    await h.gh.addRepo({ owner: OWNER, name: GADGETS, files: await demoRepoFiles() });
    h.gh.setPermission(OWNER, GADGETS, "alice", "write");

    const first = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Widgets, first" });
    expect((await assign(h, first.number)).status).toBe(200);
    await h.app.queue.idle();
    expect(trackingComment(h, first.number)).toContain("Tackle finished");
    // Clamped to the repository's $0.50, below the operator's $5 and max_cost_usd's $5.
    expect(JSON.stringify(requestsAbout(h, "Widgets, first")[0]?.body)).toContain("$0.50 of $0.50 left");

    const second = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Widgets, second" });
    expect((await assign(h, second.number)).status).toBe(200);
    await h.app.queue.idle();
    const refusal = trackingComment(h, second.number);
    expect(refusal).toContain("⚠️ Tackle ran out of budget");
    expect(refusal).toContain(
      "Reason: this repository's daily budget (`daily_budget_usd` in `.github/tackle.yml`) of \\$0.50 is used up (\\$0.60 spent, today in UTC), so the agent did not run.",
    );
    expect(requestsAbout(h, "Widgets, second")).toHaveLength(0);

    // Another repository of the same installation still runs, out of the operator's $4.40 left.
    const gadgets = h.gh.addIssue({ owner: OWNER, repo: GADGETS, title: "Gadgets work" });
    const response = await sendWebhook({
      url: h.webhookUrl,
      secret: h.gh.webhookSecret,
      event: "issues",
      payload: issuesAssignedPayload({ ...h.gh.repoContext(OWNER, GADGETS), issueNumber: gadgets.number, assignee: h.gh.botLogin, sender: "alice" }),
    });
    expect(response.status).toBe(200);
    await h.app.queue.idle();
    expect(ended(h, gadgets.number, GADGETS)).toBe(true);
    expect(trackingComment(h, gadgets.number, GADGETS)).toContain("Tackle finished");
    expect(JSON.stringify(requestsAbout(h, "Gadgets work")[0]?.body)).toContain("$4.40 of $4.40 left");
  }, 120_000);
});
