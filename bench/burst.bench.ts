/**
 * A burst on one installation: twelve assignments at once, two workers on BullMQ (a Redis of our own
 * with an append-only file), production Octokit settings, so every acknowledgement waits its turn in
 * GitHub's write spacing. What matters is whether the workers wait for that backlog: for each job,
 * the time from a worker being free (the job's own delivery for the first two; otherwise the moment
 * an earlier job's final comment edit landed, which is when its worker let go) to the job's first
 * model request, against the workspace step measured alone for the same repository.
 */
import path from "node:path";
import { createRepoCache, detectSandbox, type SandboxMode } from "../src/workspace/index.js";
import { issuesAssignedPayload, sendWebhook } from "../test/fakes/index.js";
import { startOwnRedis } from "../test/integration/queue/redis-server.js";
import { OWNER, REPO, startHarness } from "../test/integration/e2e/harness.js";
import { ms, percentile, printTable } from "./table.js";
import { median, removeDir, tempDir } from "./workspace-helpers.js";

const JOBS = 12;
const WORKERS = 2;

export async function run(): Promise<void> {
  const support = await detectSandbox();
  const mode: SandboxMode = support.available ? "bwrap" : "off";
  const base = tempDir("burst");
  const redis = await startOwnRedis({ persistent: true });
  const h = await startHarness({
    script: () => ({ content: [{ type: "tool_use", name: "task_done", input: { summary: "nothing to change" } }], stop_reason: "tool_use" }),
    extraEnv: { REDIS_URL: redis.url },
    withWorker: true,
    octokit: { throttle: true, retry: true },
    queueOptions: { concurrency: WORKERS },
  });
  try {
    // The workspace step alone, warm, for the same repository.
    const token = h.gh.mintToken({ owner: OWNER });
    const cache = createRepoCache({ home: path.join(base, "home") });
    const workspaceMs: number[] = [];
    for (let i = -1; i < 5; i += 1) {
      const started = performance.now();
      const workspace = await cache.prepare({
        jobId: `ws-${i}`,
        remoteUrl: `${h.gh.appEnv().GHE_PROTOCOL}://${h.gh.appEnv().GHE_HOST}/${OWNER}/${REPO}.git`,
        repoKey: `ghe.bench/${OWNER}/${REPO}`,
        token,
        branch: `tackle/issue-${900 + i}`,
        baseBranch: "main",
        startFrom: "base",
        sandbox: mode,
      });
      if (i >= 0) workspaceMs.push(performance.now() - started);
      await workspace.dispose();
    }

    const issues = Array.from({ length: JOBS }, (_, i) => h.gh.addIssue({ owner: OWNER, repo: REPO, title: `Burst ${i + 1} of ${JOBS}` }));
    const sent = Date.now();
    await Promise.all(
      issues.map((issue) =>
        sendWebhook({
          url: h.webhookUrl,
          secret: h.gh.webhookSecret,
          event: "issues",
          payload: issuesAssignedPayload({ ...h.gh.repoContext(OWNER, REPO), issueNumber: issue.number, assignee: h.gh.botLogin, sender: "alice" }),
        }),
      ),
    );
    const deadline = Date.now() + 240_000;
    const finalEdits = () => h.gh.requests({ method: "PATCH", path: /\/issues\/comments\/\d+$/ }).filter((r) => /Tackle (finished|failed)/.test(JSON.stringify(r.body)));
    while (new Set(finalEdits().map((r) => r.path)).size < JOBS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));

    const firstRequests = issues
      .map((issue) => h.model.requests.find((r) => JSON.stringify(r.body.messages?.[0] ?? "").includes(issue.title))?.at ?? Number.NaN)
      .sort((a, b) => a - b);
    const ends = finalEdits().map((r) => r.at).sort((a, b) => a - b);
    const waits = firstRequests.map((at, k) => at - (k < WORKERS ? sent : (ends[k - WORKERS] ?? Number.NaN)));
    const eyes = h.gh.requests({ method: "POST", path: /\/reactions$/ }).map((r) => r.at - sent);
    const comments = h.gh.requests({ method: "POST", path: /\/issues\/\d+\/comments$/ }).map((r) => r.at - sent);
    const workspace = median(workspaceMs);
    console.log(`${JOBS} assignments at once on one installation; ${WORKERS} workers (BullMQ); production Octokit settings; sandbox: ${mode}\n`);
    printTable(
      ["measure", "p50", "max"],
      [
        ["👀 at GitHub, from the burst", ms(percentile(eyes, 50)), ms(Math.max(...eyes))],
        ["tracking comment posted, from the burst", ms(percentile(comments, 50)), ms(Math.max(...comments))],
        ["first model request, from the burst", ms(percentile(firstRequests.map((at) => at - sent), 50)), ms(Math.max(...firstRequests) - sent)],
        ["worker free → the job's first model request", ms(percentile(waits, 50)), ms(Math.max(...waits))],
        ["workspace step alone (warm, for comparison)", ms(workspace), ms(Math.max(...workspaceMs))],
      ],
    );
    const p50 = percentile(waits, 50);
    console.log("");
    printTable(
      ["goal", "measured", "status"],
      [["worker free → first model request within the workspace time (p50)", `${ms(p50)} vs ${ms(workspace)}`, p50 <= workspace ? "met" : "not met"]],
    );
  } finally {
    await h.close();
    await redis.stop();
    removeDir(base);
  }
}
