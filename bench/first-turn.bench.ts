/**
 * What a user waits for: a webhook on a warm 10,000-file repository to the job's first model
 * request, against a `git clone --depth 1` of the same repository from the same fake GitHub, measured
 * round-robin in one run. Tackle's App runs in this process with production Octokit settings
 * (throttling on), so the 👀 and the tracking comment are spaced as GitHub asks: the first model
 * request must not wait for them. The server's own speed is checked against the plain tool: the same
 * shallow clone from a `file://` URL of the repository's directory.
 */
import path from "node:path";
import { execa } from "execa";
import { createRepoCache, detectSandbox, type SandboxMode } from "../src/workspace/index.js";
import { cleanGitEnv, issuesAssignedPayload, sendWebhook } from "../test/fakes/index.js";
import { startHarness } from "../test/integration/e2e/harness.js";
import { ms, printTable } from "./table.js";
import { generateRepo, median, removeDir, tempDir } from "./workspace-helpers.js";

const FILES = 10_000;
const RUNS = 5;
const OWNER = "octo";
const NAME = "big";
const GOAL_FIRST_TURN = 0.5;
const GOAL_WORKSPACE = 2.5;

export async function run(): Promise<void> {
  const support = await detectSandbox();
  const mode: SandboxMode = support.available ? "bwrap" : "off";
  const base = tempDir("first-turn");
  const h = await startHarness({
    script: () => ({ content: [{ type: "tool_use", name: "task_done", input: { summary: "nothing to do" } }], stop_reason: "tool_use" }),
    octokit: { throttle: true, retry: true },
  });
  try {
    const repo = await generateRepo(h.gh, { owner: OWNER, name: NAME, files: FILES, commits: 30 });
    h.gh.setPermission(OWNER, NAME, "alice", "write");
    const token = h.gh.mintToken({ owner: OWNER });
    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    const gitEnv = cleanGitEnv(base);
    const clone = async (url: string, run: number, extra: string[] = []): Promise<number> => {
      const dir = path.join(base, `clone-${run}`);
      const started = performance.now();
      await execa("git", [...extra, "clone", "--quiet", "--depth", "1", url, dir], { env: gitEnv, extendEnv: false });
      const took = performance.now() - started;
      removeDir(dir);
      return took;
    };
    const fileUrl = `file://${h.gh.gitDir(OWNER, NAME)}`;

    /** One assignment, from the delivery's sending: 👀 at the fake GitHub, the first model request, the job's end. */
    const job = async (): Promise<{ eyes: number; firstTurn: number }> => {
      const issue = h.gh.addIssue({ owner: OWNER, repo: NAME, title: "Tidy up" });
      const before = h.model.requests.length;
      const sent = Date.now();
      await sendWebhook({
        url: h.webhookUrl,
        secret: h.gh.webhookSecret,
        event: "issues",
        payload: issuesAssignedPayload({ ...h.gh.repoContext(OWNER, NAME), issueNumber: issue.number, assignee: h.gh.botLogin, sender: "alice" }),
      });
      const reaction = await h.gh.waitForRequest({ method: "POST", path: new RegExp(`/repos/${OWNER}/${NAME}/issues/${issue.number}/reactions$`) }, 60_000);
      const first = await waitFor(() => h.model.requests[before], 60_000);
      await h.app.queue.idle();
      return { eyes: reaction.at - sent, firstTurn: first.at - sent };
    };

    /** The workspace step alone, as the job runs it (warm mirror, recycled checkout). */
    const cache = createRepoCache({ home: path.join(base, "home") });
    const workspaceStep = async (run: number): Promise<number> => {
      const started = performance.now();
      const workspace = await cache.prepare({
        jobId: `ws-${run}`,
        remoteUrl: repo.cloneUrl,
        repoKey: `ghe.bench/${OWNER}/${NAME}`,
        token,
        branch: `tackle/issue-${1000 + run}`,
        baseBranch: "main",
        startFrom: "base",
        sandbox: mode,
      });
      const took = performance.now() - started;
      await workspace.dispose();
      return took;
    };

    // Warm-up: the App's mirror and recycled checkout, and the bench's own.
    await job();
    await workspaceStep(-1);
    const samples = { eyes: [] as number[], firstTurn: [] as number[], http: [] as number[], file: [] as number[], workspace: [] as number[] };
    for (let i = 0; i < RUNS; i += 1) {
      samples.http.push(await clone(repo.cloneUrl, i, ["-c", `http.extraHeader=${header}`]));
      samples.file.push(await clone(fileUrl, i));
      const timed = await job();
      samples.eyes.push(timed.eyes);
      samples.firstTurn.push(timed.firstTurn);
      samples.workspace.push(await workspaceStep(i));
    }
    const m = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)])) as Record<keyof typeof samples, number>;
    console.log(`repository: ${FILES} files; sandbox: ${mode}; production Octokit settings; median of ${RUNS} runs, round-robin\n`);
    printTable(
      ["step", "time (median)", "vs shallow clone (HTTP)"],
      [
        ["git clone --depth 1 over the fake's smart HTTP (baseline)", ms(m.http), "1.00×"],
        ["git clone --depth 1 of a file:// URL (the server's own speed check)", ms(m.file), `${(m.file / m.http).toFixed(2)}×`],
        ["webhook sent → 👀 at GitHub", ms(m.eyes), "—"],
        ["webhook sent → first model request", ms(m.firstTurn), `${(m.firstTurn / m.http).toFixed(2)}×`],
        ["👀 → first model request", ms(m.firstTurn - m.eyes), `${((m.firstTurn - m.eyes) / m.http).toFixed(2)}×`],
        ["workspace step (warm mirror, recycled checkout)", ms(m.workspace), `${(m.workspace / m.http).toFixed(2)}×`],
      ],
    );
    const firstTurn = Math.max(0, m.firstTurn - m.eyes) / m.http;
    const speedup = m.http / m.workspace;
    console.log("");
    printTable(
      ["goal", "measured", "status"],
      [
        [`👀 → first model request ≤ ${GOAL_FIRST_TURN}× a shallow clone`, `${firstTurn.toFixed(2)}×`, firstTurn <= GOAL_FIRST_TURN ? "met" : "not met"],
        [`workspace step ≥ ${GOAL_WORKSPACE}× faster than a shallow clone`, `${speedup.toFixed(2)}×`, speedup >= GOAL_WORKSPACE ? "met" : "not met"],
      ],
    );
  } finally {
    await h.close();
    removeDir(base);
  }
}

async function waitFor<T>(read: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
