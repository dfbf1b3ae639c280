// The dashboard in a real headless Chromium (Debian's, driven by playwright-core): sign in through the
// form, watch a running job's timeline grow while the scripted model waits on a gate between turns,
// open a finished job with a subagent and artifacts, download one with the right headers, and check
// that the job's canary secrets (an operator TACKLE_SECRET_ value and the model key, both in its tool
// output and the model's words) appear on no page. Jobs run through Redis and a BullMQ worker, as
// they would on another machine; screenshots go to a temp directory printed at the start.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedBlock, ScriptedTurn } from "../../fakes/index.js";
import { startOwnRedis, type OwnRedis } from "../queue/redis-server.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { firstUserText, gate, turnIndex } from "./script-helpers.js";
import { assign, botComments } from "./trigger-helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = `dash-${randomBytes(16).toString("hex")}`;
const CANARY = `canary-${randomBytes(12).toString("hex")}`;
const PUBLIC_URL = "http://tackle.example.test";
const LIVE_TITLE = "Live job: watch me";
const DONE_TITLE = "Finished job: report the findings";
const SUB_PROMPT = "Find where the Fahrenheit conversion lives and answer with its path.";

const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });
const call = (name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", name, input });
const say = (text: string): ScriptedBlock => ({ type: "text", text });

const liveGates = [gate(), gate()];
let modelKey = "";

/** The finished job: a subagent, the canary read and echoed, two artifacts (one HTML), a report linking one. */
function finishedTurns(): ScriptedTurn[] {
  return [
    turn(say("I will ask a subagent first."), call("Task", { description: "find the conversion", prompt: SUB_PROMPT, subagent_type: "explore" })),
    turn(say(`The notes hold ${CANARY} and the key ${modelKey}.`), call("Read", { file_path: "notes/creds.txt" })),
    turn(
      call("Write", { file_path: "report.md", content: `# Findings\nThe key was ${CANARY}.\n<script>alert("report")</script>\n` }),
      call("Write", { file_path: "page.html", content: "<html><script>document.title = 'pwned'</script></html>\n" }),
    ),
    // One a turn: calls of one turn run side by side, and ids are given in the order uploads finish.
    turn(call("UploadArtifact", { file_path: "report.md", description: "the findings <b>bold</b>" })),
    turn(call("UploadArtifact", { file_path: "page.html" })),
    turn(call("ReportToIssue", { body: "See the report.", artifact_ids: ["a1"] })),
    turn(call("task_done", { summary: "Reported the findings." })),
  ];
}

const subagentTurns: ScriptedTurn[] = [
  turn(say("Looking for the conversion <img src=x onerror=alert(1)>."), call("Glob", { pattern: "src/*.js" })),
  { content: [say("src/temperature.js")], stop_reason: "end_turn" },
];

const liveTurns: ScriptedTurn[] = [
  turn(say("LIVE-STEP-ONE: reading the issue."), call("GetIssue", {})),
  turn(say("LIVE-STEP-TWO: reading the code."), call("Read", { file_path: "src/temperature.js" })),
  turn(call("task_done", { summary: "Looked around." })),
];

async function script(request: Record<string, unknown>): Promise<ScriptedTurn> {
  const task = firstUserText(request);
  const index = turnIndex(request);
  if (task.includes(SUB_PROMPT)) return subagentTurns[Math.min(index, subagentTurns.length - 1)]!;
  if (task.includes(LIVE_TITLE)) {
    if (index >= 1) await liveGates[index - 1]!.wait();
    return liveTurns[Math.min(index, liveTurns.length - 1)]!;
  }
  const turns = finishedTurns();
  return turns[Math.min(index, turns.length - 1)]!;
}

let redis: OwnRedis;
let h: Harness;
let browser: Browser;
let base: string;
let shots: string;
/** Every page's HTML and every dashboard response body the test saw, searched for secrets at the end. */
const seen: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: this test needs Debian's chromium (apt-get install chromium); CI installs it`);
  }
  shots = await mkdtemp(path.join(os.tmpdir(), "tackle-dashboard-shots-"));
  console.log(`dashboard screenshots: ${shots}`);
  redis = await startOwnRedis();
  h = await startHarness({
    script,
    withWorker: true,
    extraEnv: { REDIS_URL: redis.url, TACKLE_DASHBOARD_TOKEN: TOKEN, TACKLE_SECRET_CANARY: CANARY, TACKLE_PUBLIC_URL: PUBLIC_URL },
  });
  modelKey = h.model.apiKey;
  await h.gh.commitFiles(OWNER, REPO, "main", { "notes/creds.txt": `deploy key: ${CANARY}\nmodel: ${modelKey}\n` });
  base = h.webhookUrl.replace(/\/api\/github\/webhooks$/, "");
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  await redis?.stop();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

async function keep(page: Page): Promise<void> {
  seen.push(await page.content());
}

describe("the dashboard in Chromium", () => {
  it("signs in, shows a finished job's timeline with its subagent and artifacts, follows a running job live, and shows no secret", {
    timeout: 240_000,
  }, async () => {
    // The finished job runs first, to its end.
    const done = h.gh.addIssue({ owner: OWNER, repo: REPO, title: DONE_TITLE });
    expect((await assign(h, done.number)).status).toBe(200);
    await h.app.queue.idle();
    const tracking = botComments(h, done.number).find((c) => c.body.includes("tackle:tracking"))!.body;
    const jobId = /<!-- tackle:tracking job=(\S+) -->/.exec(tracking)![1]!;
    const jobUrl = `${PUBLIC_URL}/dashboard/jobs/${encodeURIComponent(jobId)}`;
    // The tracking comment links the job's page and its artifacts (the model's description shown inert);
    // the report links the one it names.
    expect(tracking).toContain(`[Transcript and artifacts](${jobUrl})`);
    expect(tracking).toContain(`- [report.md (a1)](${jobUrl}/artifacts/a1): the findings \\<b\\>bold\\</b\\>`);
    expect(botComments(h, done.number).some((c) => c.body.includes(`- [report.md (a1)](${jobUrl}/artifacts/a1)`) && c.body.startsWith("See the report."))).toBe(
      true,
    );

    const context = await browser.newContext();
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const violations: string[] = [];
    page.on("console", (message) => {
      // bull-board's page asks for Google's fonts, which the queue view's CSP refuses (checked below).
      if (/Content Security Policy/i.test(message.text()) && !message.text().includes("https://fonts.googleapis.com/")) violations.push(message.text());
    });
    // Nothing leaves the machine: every request the pages make goes to the dashboard itself, or is
    // refused by its CSP before it is sent (a failure with any other reason went to the network).
    const elsewhere: string[] = [];
    const offSite = (url: string) => !url.startsWith(base) && !url.startsWith("data:");
    context.on("requestfinished", (request) => {
      if (offSite(request.url())) elsewhere.push(request.url());
    });
    context.on("requestfailed", (request) => {
      if (offSite(request.url()) && !/^csp$|BLOCKED_BY_CSP/.test(request.failure()?.errorText ?? ""))
        elsewhere.push(`${request.url()} (${request.failure()?.errorText})`);
    });

    // Signed out, the dashboard sends the browser to the form; a wrong token is refused.
    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/login");
    await page.fill("#token", "not-the-token-at-all");
    await page.click("button[type=submit]");
    await expect.poll(() => page.textContent("[role=alert]")).toContain("That is not the dashboard token.");
    await page.fill("#token", TOKEN);
    await shot(page, "01-login");
    await page.click("button[type=submit]");
    await page.waitForSelector("table.jobs");
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "tackle_dashboard", httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    expect(cookie!.value).not.toContain(TOKEN);
    await keep(page);
    await shot(page, "02-jobs");
    expect(await page.textContent("table.jobs")).toContain(`${OWNER}/${REPO}#${done.number}`);

    // The finished job: its timeline, the subagent nested in its Task call, policy-free results, artifacts.
    await page.click(`a[href="/dashboard/jobs/${encodeURIComponent(jobId)}"]`);
    await page.waitForSelector(".timeline .end");
    await keep(page);
    await shot(page, "03-finished-job");
    expect(await page.getAttribute("main.job", "data-live")).toBe("ended");
    expect(await page.textContent("[data-field=status]")).toBe("done");
    const nested = page.locator('[id="call:1:main/1/1"] > .agent[id="tl:1:main/1/1"]');
    await expect.poll(() => nested.count()).toBe(1);
    expect(await nested.textContent()).toContain("src/temperature.js");
    expect(await page.locator('[id="call:1:main/1/1"] .tool').first().textContent()).toBe("Task");
    // Transcript text is text: the model's markup shows as written and runs nothing.
    expect(await page.textContent(".timeline")).toContain("<img src=x onerror=alert(1)>");
    expect(await page.textContent(".timeline")).toContain("<script>document.title = 'pwned'</script>");
    expect(await page.locator(".timeline img, .timeline script").count()).toBe(0);
    const artifactLinks = await page.locator("#artifacts a").evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute("href")]));
    expect(artifactLinks).toEqual([
      ["report.md", `/dashboard/jobs/${encodeURIComponent(jobId)}/artifacts/a1`],
      ["page.html", `/dashboard/jobs/${encodeURIComponent(jobId)}/artifacts/a2`],
    ]);
    expect(await page.textContent("#artifacts")).toContain("the findings <b>bold</b>");

    // Downloads: attachments, unsniffed, sandboxed; the report's canary masked.
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#artifacts a >> text=report.md")]);
    expect(download.suggestedFilename()).toBe("report.md");
    for (const id of ["a1", "a2"]) {
      const response = await context.request.get(`${base}/dashboard/jobs/${encodeURIComponent(jobId)}/artifacts/${id}`);
      expect(response.status()).toBe(200);
      const headers = response.headers();
      expect(headers["content-disposition"]).toMatch(/^attachment; filename="(report\.md|page\.html)"/);
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(headers["content-security-policy"]).toBe("sandbox; default-src 'none'");
      expect(headers["content-type"]).toBe("application/octet-stream");
      seen.push(await response.text());
    }
    expect(await (await context.request.get(`${base}/dashboard/jobs/${encodeURIComponent(jobId)}/artifacts/a1`)).text()).toBe(
      '# Findings\nThe key was [REDACTED].\n<script>alert("report")</script>\n',
    );
    // An HTML artifact opened in the browser does not run on the dashboard's origin.
    const htmlTab = await context.newPage();
    await htmlTab.goto(`${base}/dashboard/jobs/${encodeURIComponent(jobId)}/artifacts/a2`).catch(() => undefined);
    expect(await htmlTab.title().catch(() => "")).not.toBe("pwned");
    await htmlTab.close();

    // The queue's own view, behind the same sign-in.
    const board = await context.request.get(`${base}/dashboard/queues`);
    expect(board.status()).toBe(200);
    seen.push(await board.text());
    await page.goto(`${base}/dashboard/queues`);
    expect(board.headers()["content-security-policy"]).toContain("script-src 'self';");
    await page.waitForSelector("text=tackle-jobs", { timeout: 30_000 });
    await shot(page, "03b-queue");
    const queueApi = await context.request.get(`${base}/dashboard/queues/api/queues`);
    expect(queueApi.status()).toBe(200);
    seen.push(await queueApi.text());
    const anonymous = await browser.newContext();
    expect((await anonymous.request.get(`${base}/dashboard/queues`, { maxRedirects: 0 })).status()).toBe(401);
    await anonymous.close();

    // A running job: its page grows as the model's gated turns arrive, then ends without a reload.
    const live = h.gh.addIssue({ owner: OWNER, repo: REPO, title: LIVE_TITLE });
    expect((await assign(h, live.number)).status).toBe(200);
    await h.gh.waitFor(() => h.model.requests.some((r) => firstUserText(r.body).includes(LIVE_TITLE) && turnIndex(r.body) === 1), 60_000);
    const liveTracking = () => botComments(h, live.number).find((c) => c.body.includes("tackle:tracking"))?.body ?? "";
    await h.gh.waitFor(() => /job=(\S+) -->/.test(liveTracking()), 30_000);
    const liveId = /<!-- tackle:tracking job=(\S+) -->/.exec(liveTracking())![1]!;
    await page.goto(`${base}/dashboard/jobs/${encodeURIComponent(liveId)}`);
    await page.waitForSelector("text=LIVE-STEP-ONE");
    expect(await page.getAttribute("main.job", "data-live")).toBe("live");
    expect(await page.textContent("[data-field=status]")).toBe("running");
    expect(await page.locator("text=LIVE-STEP-TWO").count()).toBe(0);
    await shot(page, "04-live-before");
    liveGates[0]!.open();
    await page.waitForSelector("text=LIVE-STEP-TWO", { timeout: 30_000 });
    await page.waitForSelector('[id="call:1:main/2/1"] .result');
    await keep(page);
    await shot(page, "05-live-grown");
    liveGates[1]!.open();
    await page.waitForSelector('main.job[data-live="ended"]', { timeout: 60_000 });
    expect(await page.textContent("[data-field=status]")).toMatch(/^(done|no_changes)$/);
    await page.waitForSelector(".timeline .end");
    await keep(page);
    await shot(page, "06-live-ended");
    // The live page, reloaded, is the same timeline the stream built.
    const grown = await page.locator(".timeline .event").count();
    await page.reload();
    await keep(page);
    expect(await page.locator(".timeline .event").count()).toBe(grown);

    // The jobs page again, with both; then nothing anywhere held a secret.
    await page.goto(`${base}/dashboard`);
    await keep(page);
    await shot(page, "07-jobs-after");
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
    expect(elsewhere).toEqual([]);
    const everything = seen.join("\n");
    expect(everything).toContain("[REDACTED]");
    for (const secret of [CANARY, modelKey, TOKEN, h.gh.webhookSecret]) expect(everything).not.toContain(secret);
    await context.close();
  });
});
