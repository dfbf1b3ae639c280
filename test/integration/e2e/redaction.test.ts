// One redaction point per way out to GitHub: a secret the agent (or an error, or a repo config)
// puts into any text the job writes never reaches the fake GitHub. Each write path is exercised
// through the real job processor and Octokit, and the fake's request log is searched for the secrets.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { redactingGitHubClient, tokenClient } from "../../../src/github/index.js";
import type { JobData } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createJobRuntime } from "../../../src/main/runtime.js";
import { helpText } from "../../../src/triggers/index.js";
import { createRedactor } from "../../../src/util/redact.js";
import { inert } from "../../../src/util/surface-markdown.js";
import { processJob, type ProcessJobDeps } from "../../../src/worker/index.js";
import { startFakeAnthropic, startFakeGitHub, type FakeAnthropic, type FakeGitHub, type ScriptedBlock, type ScriptedTurn } from "../../fakes/index.js";
import { demoRepoFiles, OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { firstUserText, turnIndex } from "./script-helpers.js";
import { botComments, comment, setRepoConfig } from "./trigger-helpers.js";

const alnum = (n: number) => "aB3dE6gH9k".repeat(Math.ceil(n / 10)).slice(0, n);
/** Known formats, built by concatenation so the file does not look like a credential to a scanner. */
const GITHUB_TOKEN = `ghp_${alnum(36)}`;
const GLUED_TOKEN = `X${"ghs_"}${alnum(36)}`;
const SLACK_TOKEN = `xoxb-123456789012-${alnum(24)}`;
const BASIC = `Basic ${Buffer.from(`deploy:${alnum(16)}`).toString("base64")}`;
const KNOWN = [GITHUB_TOKEN, GLUED_TOKEN.slice(1), SLACK_TOKEN, BASIC.slice("Basic ".length)];

let gh: FakeGitHub | undefined;
let model: FakeAnthropic | undefined;
let home: string | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await model?.close();
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
  gh = model = home = undefined;
});

/** Every text the fake GitHub received in a write (comment, comment edit, PR create or update). */
function writtenToGitHub(fake: FakeGitHub): string {
  const writes = fake.requests({ kind: "rest" }).filter((entry) => entry.method !== "GET" && entry.body !== undefined);
  return JSON.stringify(writes.map((entry) => entry.body));
}

function expectNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

describe("redactingGitHubClient", () => {
  it("masks the text of every write it sends: comment, comment edit, PR title and body, a PR edit of either", async () => {
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: OWNER, name: REPO });
    await gh.commitFiles(OWNER, REPO, "tackle/issue-1", { "a.txt": "a\n" });
    const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "t" });
    const secret = "job-secret-by-value-123";
    const raw = tokenClient({ token: gh.mintToken({ owner: OWNER }), apiUrl: gh.apiUrl, logger: silentLogger, throttle: false, retry: false });
    const github = redactingGitHubClient(raw, createRedactor([secret]));
    const repo = { owner: OWNER, name: REPO };
    const text = `see ${secret} and ${GITHUB_TOKEN} ${GLUED_TOKEN} ${SLACK_TOKEN} ${BASIC}`;

    const created = await github.createComment(repo, issue.number, inert(text));
    await github.updateComment(repo, created.id, inert(`edited: ${text}`));
    const pull = await github.createPull(repo, { head: "tackle/issue-1", base: "main", title: `PR ${GITHUB_TOKEN}`, body: inert(text), draft: true });
    await github.updatePull(repo, pull.number, { body: inert(`new body ${SLACK_TOKEN}`) });
    await github.updatePull(repo, pull.number, { title: `new title ${secret}` });

    expectNoSecret(writtenToGitHub(gh), [secret, ...KNOWN]);
    expect(gh.comments(OWNER, REPO, issue.number)[0]!.body).toBe(
      "edited: see [REDACTED] and [REDACTED:github-token] X[REDACTED:github-token] [REDACTED:slack-token] Basic [REDACTED:basic-auth]",
    );
    const stored = gh.pulls(OWNER, REPO)[0]!;
    expect(stored.title).toBe("new title [REDACTED]");
    expect(stored.body).toBe("new body [REDACTED:slack-token]");
    // Reads pass through untouched.
    expect((await github.getIssue(repo, issue.number)).title).toBe("t");
  });
});

describe("a job's writes to GitHub", () => {
  async function setup(script: (request: unknown) => ScriptedTurn): Promise<{ deps: ProcessJobDeps; job: (number: number, id: string) => JobData }> {
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    model = await startFakeAnthropic((request) => script(request), { minCacheableTokens: 0 });
    home = await mkdtemp(path.join(os.tmpdir(), "tackle-redaction-"));
    const runtime = await createJobRuntime(
      { ...gh.appEnv(), ...model.env(), TACKLE_HOME: home, PATH: process.env.PATH ?? "" },
      { mode: "server", logger: silentLogger, octokit: { throttle: false, retry: false } },
    );
    const installationId = gh.installationId(OWNER);
    const job = (number: number, id: string): JobData => ({
      jobId: `octo-widgets-${number}-${id}`,
      deliveryId: id,
      installationId,
      repo: { owner: OWNER, name: REPO },
      number,
      isPullRequest: false,
      trigger: { kind: "issue_assigned", actor: "alice" },
      enqueuedAt: new Date().toISOString(),
    });
    return { deps: runtime.deps, job };
  }

  it("never sends a secret through ReportToIssue, the PR title and body, the tracking comment, a failure reason or a config reply", async () => {
    // The job's own secrets, masked by value: the model key and the webhook secret (no known format).
    let bySecretValue: string[] = [];
    const planted = () => [...bySecretValue, ...KNOWN];
    const leak = () => `leaking ${bySecretValue.join(" ")} ${GITHUB_TOKEN} ${GLUED_TOKEN} ${SLACK_TOKEN} ${BASIC}`;
    const { deps, job } = await setup((request) => {
      const task = firstUserText(request);
      if (task.includes("Model fails")) {
        return { error: { status: 400, type: "invalid_request_error", message: `rejected: ${leak()}` } };
      }
      const turns = [
        turn({ type: "tool_use", name: "ReportToIssue", input: { body: `Found it. ${leak()}` } }),
        turn({ type: "tool_use", name: "Edit", input: { file_path: "src/temperature.js", old_string: "/ 5 + 23;", new_string: "/ 5 + 32;" } }),
        turn({ type: "tool_use", name: "git_commit", input: { message: "Fix the offset" } }),
        turn({ type: "tool_use", name: "create_pull_request", input: { title: `Fix ${GITHUB_TOKEN} ${bySecretValue[0]}`, body: leak() } }),
        turn({ type: "tool_use", name: "task_done", input: { summary: `Done. ${leak()}` } }),
      ];
      return turns[Math.min(turnIndex(request), turns.length - 1)]!;
    });
    bySecretValue = [model!.apiKey, gh!.webhookSecret];
    const signal = new AbortController().signal;

    // Agent writes: ReportToIssue, create_pull_request (title, body), task_done's summary in the final tracking comment.
    const work = gh!.addIssue({ owner: OWNER, repo: REPO, title: "Fix the offset" });
    expect((await processJob(job(work.number, "d-work"), deps, signal)).status).toBe("done");
    // A failure reason from the model API's error message.
    const failing = gh!.addIssue({ owner: OWNER, repo: REPO, title: "Model fails" });
    const failed = await processJob(job(failing.number, "d-model"), deps, signal);
    expect(failed.status).toBe("failed");
    expectNoSecret(failed.reason, planted());
    // A failure reason from a GitHub error (the job's catch path).
    const broken = gh!.addIssue({ owner: OWNER, repo: REPO, title: "GitHub fails" });
    gh!.failNext({ status: 422, match: { method: "GET", pathRegex: new RegExp(`/issues/${broken.number}$`) }, body: { message: `Validation: ${leak()}` } });
    const thrown = await processJob(job(broken.number, "d-github"), deps, signal);
    expect(thrown.status).toBe("failed");
    expectNoSecret(thrown.reason, planted());
    // The reply naming each bad key of an invalid repo config.
    await gh!.commitFiles(OWNER, REPO, "main", { ".github/tackle.yml": `${GITHUB_TOKEN}: 1\n` }, { message: "config" });
    const configured = gh!.addIssue({ owner: OWNER, repo: REPO, title: "Bad config" });
    expect((await processJob(job(configured.number, "d-config"), deps, signal)).status).toBe("failed");

    expectNoSecret(writtenToGitHub(gh!), planted());
    // Each path did write, masked (not dropped).
    const bodies = (number: number) => gh!.comments(OWNER, REPO, number).map((c) => c.body);
    expect(bodies(work.number).find((b) => b.startsWith("Found it."))).toContain(
      "[REDACTED] [REDACTED] [REDACTED:github-token] X[REDACTED:github-token] [REDACTED:slack-token] Basic [REDACTED:basic-auth]",
    );
    expect(bodies(work.number).find((b) => b.includes("tackle:tracking"))).toContain("Done. leaking [REDACTED]");
    const pull = gh!.pulls(OWNER, REPO)[0]!;
    expect(pull.title).toBe("Fix [REDACTED:github-token] [REDACTED]");
    expect(pull.body).toContain("leaking [REDACTED] [REDACTED] [REDACTED:github-token]");
    expect(bodies(failing.number).join("\n")).toContain("rejected: leaking [REDACTED]");
    expect(bodies(broken.number).join("\n")).toContain("Validation: leaking [REDACTED]");
    expect(bodies(configured.number).join("\n")).toContain("[REDACTED:github-token]");

    // The transcripts went through the job's redactor too.
    const dir = path.join(home!, "transcripts");
    const transcripts = await Promise.all((await readdir(dir)).map((file) => readFile(path.join(dir, file), "utf8")));
    expect(transcripts.join("\n")).toContain("[REDACTED:github-token]");
    expectNoSecret(transcripts.join("\n"), planted());
  });
});

describe("the webhook side's writes to GitHub", () => {
  it("a reply built from repository text goes through a redacting client", async () => {
    // A repo config's command name is repository-controlled text that the help reply repeats; this one
    // has a GitLab token's shape (letters, digits and dashes pass the name check).
    const phrase = `glpat-${alnum(20)}`;
    harness = await startHarness({ script: [] });
    await setRepoConfig(harness, `trigger:\n  phrase: ${phrase}\n`);
    const issue = harness.gh.addIssue({ owner: OWNER, repo: REPO, title: "How does this work?" });
    await comment(harness, issue.number, `/${phrase} help`);
    await harness.gh.waitFor(() => botComments(harness!, issue.number).length > 0);

    expectNoSecret(writtenToGitHub(harness.gh), [phrase]);
    expect(botComments(harness, issue.number)[0]!.body).toBe(helpText(phrase).replaceAll(phrase, "[REDACTED:gitlab-token]"));
  });
});
