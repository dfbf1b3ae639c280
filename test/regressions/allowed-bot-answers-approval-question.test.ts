// Broken (red team of #20, fourteenth pass, approvals): `allowed_bots` is the repository's list of
// bots that may *start work* (README: "Bots are refused unless listed in allowed_bots"), but the gate
// (src/triggers/gate.ts › gateTrigger) admits a listed bot for every command without a permission check,
// and src/main/webhook-app.ts › answerQuestion then answers the pending policy question with it. The
// question itself says "Only users with write access can answer", and the README says the job waits for
// `/tackle approve` "from a user with write access". A listed bot is not one: `github-actions[bot]`
// posts whatever any workflow (and the PR titles, logs and issue text those workflows echo, written by
// outsiders) puts at the start of a line; renovate echoes upstream release notes and tool errors.
// Measured: a real Probot receiving a signed-shape `issue_comment.created` from `renovate[bot]`
// ("/tackle approve") with `allowed_bots: ["renovate"]` approves the job's pending question (a
// `curl … | sh` Bash call): approvals.wait resolved { approved: true, by: "renovate[bot]" }.
// What should hold: only a user the permission endpoint calls a writer answers a question; an
// allow-listed bot's `/tackle approve` finds nothing to answer and the question stays pending.
// Fixed: an allow-listed bot passes the gate for work, never for `approve` or `deny` (src/triggers/gate.ts › gateTrigger).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProbot, installationClients } from "../../src/github/index.js";
import { createEmbeddedApprovals } from "../../src/jobs/embedded-approvals.js";
import { laneKey } from "../../src/jobs/job-data.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createWebhookApp } from "../../src/main/webhook-app.js";
import { issueCommentCreatedPayload, startFakeGitHub, type FakeGitHub } from "../fakes/index.js";

const OWNER = "acme";
const NAME = "widgets";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
  await fake.addRepo({ owner: OWNER, name: NAME, files: { "README.md": "# w\n", ".github/tackle.yml": 'allowed_bots: ["renovate"]\n' } });
  fake.setPermission(OWNER, NAME, "alice", "write");
});
afterAll(() => fake.close());

describe("an allow-listed bot and the approval question", () => {
  it("cannot approve what the job asks a maintainer", async () => {
    const issue = fake.addIssue({ owner: OWNER, repo: NAME, title: "Speed up the build" });
    const approvals = createEmbeddedApprovals();
    const lane = laneKey({ repo: { owner: OWNER, name: NAME }, number: issue.number });
    const id = await approvals.ask(lane, { jobId: "job-1", summary: "Bash: it pipes a download into a shell", deadline: Date.now() + 60_000 });

    const env = fake.appEnv();
    const credentials = { appId: env.APP_ID!, privateKey: env.PRIVATE_KEY! };
    const probot = createProbot({ ...credentials, webhookSecret: fake.webhookSecret, apiUrl: fake.apiUrl }, silentLogger, { throttle: false });
    const forInstallation = installationClients(probot, credentials);
    await probot.load(
      createWebhookApp({
        identity: { botLogin: fake.botLogin, botName: "tackle" },
        // Commands never enqueue: neither is reached by an answer.
        queue: {} as never,
        claims: {} as never,
        github: forInstallation,
        logger: silentLogger,
        approvals,
      }),
    );
    const body = "/tackle approve";
    const record = fake.addComment({ owner: OWNER, repo: NAME, issueNumber: issue.number, body, user: "renovate[bot]" });
    await probot.receive({
      id: "delivery-bot-approve",
      name: "issue_comment",
      payload: issueCommentCreatedPayload({
        ...fake.repoContext(OWNER, NAME),
        issueNumber: issue.number,
        commentBody: body,
        commentId: record.id,
        commenter: "renovate[bot]",
        commenterType: "Bot",
      }),
    } as never);

    // The question must still be pending: its wait ends only at this short deadline, unanswered.
    const outcome = await approvals.wait(lane, id, { deadline: Date.now() + 300 });
    await approvals.close();
    expect(outcome).not.toMatchObject({ approved: true });
    expect(outcome.reason).toBe("timeout");
  });
});
