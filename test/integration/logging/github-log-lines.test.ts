// The lines a trigger writes on its way through GitHub, in both clients: Probot's (the App, through a
// real Probot receiving the delivery) and the plain token client (the Action). A repository without
// `.github/tackle.yml` answers 404 to the config read; that is the normal case, so it is logged at
// debug, and each line carries one `name`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProbot, installationClients, tokenClient } from "../../../src/github/index.js";
import { admitTrigger, type Admission } from "../../../src/triggers/index.js";
import { issueCommentCreatedPayload, startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { captureLogs, topLevelKeys, type LogLine } from "../../unit/logging/log-lines.js";

const OWNER = "acme";
const CONFIG_READ = /\/contents\/\.github(%2F|\/)tackle\.yml/;

let fake: FakeGitHub;
let repos = 0;

beforeAll(async () => {
  fake = await startFakeGitHub();
});
afterAll(() => fake.close());

async function repoWithIssue(): Promise<{ name: string; number: number }> {
  const name = `widgets-${++repos}`;
  await fake.addRepo({ owner: OWNER, name, files: { "README.md": "# w\n" } });
  fake.setPermission(OWNER, name, "alice", "write");
  return { name, number: fake.addIssue({ owner: OWNER, repo: name, title: "Broken" }).number };
}

function mentionPayload(name: string, number: number): unknown {
  return issueCommentCreatedPayload({ ...fake.repoContext(OWNER, name), issueNumber: number, commentBody: "@tackle fix it", commenter: "alice" });
}

function expectQuietConfigRead(lines: string[], records: LogLine[], name: string): void {
  // The read did happen, and GitHub answered 404.
  expect(
    fake
      .requests({ method: "GET", path: CONFIG_READ })
      .filter((r) => r.path.includes(`/${name}/`))
      .map((r) => r.status),
  ).toEqual([404]);
  expect(records.filter((r) => r.level >= 40)).toEqual([]);
  const notFound = records.filter((r) => CONFIG_READ.test(r.msg ?? "") && / 404\b/.test(r.msg ?? ""));
  expect(notFound.length).toBeGreaterThanOrEqual(1);
  for (const line of notFound) expect(line.level).toBe(20);
  for (const line of lines) expect(topLevelKeys(line).filter((key) => key === "name")).toEqual(["name"]);
}

describe("log lines of a trigger on a repository without .github/tackle.yml", () => {
  it("the App (Probot receiving the delivery, its installation client): debug for the 404, one name per line", async () => {
    const { name, number } = await repoWithIssue();
    const { logger, lines, records } = captureLogs();
    const env = fake.appEnv();
    const credentials = { appId: env.APP_ID!, privateKey: env.PRIVATE_KEY! };
    const probot = createProbot({ ...credentials, webhookSecret: fake.webhookSecret, apiUrl: fake.apiUrl }, logger, { throttle: false });
    const forInstallation = installationClients(probot, credentials);
    let admission: Admission | undefined;
    await probot.load((app) => {
      app.on("issue_comment.created", async (context) => {
        context.log.info("delivery received");
        admission = await admitTrigger({
          event: "issue_comment",
          payload: context.payload,
          deliveryId: context.id,
          botLogin: fake.botLogin,
          botName: "tackle",
          logger: context.log,
          github: async () => forInstallation(fake.installationId(OWNER)),
        });
      });
    });
    await probot.receive({ id: "delivery-app-1", name: "issue_comment", payload: mentionPayload(name, number) } as never);

    expect(admission?.status).toBe("task");
    expectQuietConfigRead(lines, records(), name);
    // Probot's own loggers wrote here (Probot's, the delivery's, the installation client's), each under its own name.
    const names = new Set(records().map((r) => r.name));
    expect([...names]).toEqual(expect.arrayContaining(["event", "github"]));
    for (const each of names) expect(["probot", "event", "github", "octokit"]).toContain(each);
  });

  it("the Action (the token client): debug for the 404, one name per line", async () => {
    const { name, number } = await repoWithIssue();
    const { logger, lines, records } = captureLogs();
    const github = tokenClient({ token: fake.mintToken({ owner: OWNER }), apiUrl: fake.apiUrl, logger, throttle: false, retry: false });
    const admission = await admitTrigger({
      event: "issue_comment",
      payload: mentionPayload(name, number),
      deliveryId: "delivery-action-1",
      botLogin: "github-actions[bot]",
      botName: "tackle",
      logger,
      github: async () => github,
    });

    expect(admission.status).toBe("task");
    expectQuietConfigRead(lines, records(), name);
  });

  it("a failure that is not an answer is still reported, once, by the caller that knows what it means", async () => {
    const { name, number } = await repoWithIssue();
    const { logger, records } = captureLogs();
    fake.failNext({ count: 1, status: 500, match: { method: "GET", pathRegex: CONFIG_READ } });
    const github = tokenClient({ token: fake.mintToken({ owner: OWNER }), apiUrl: fake.apiUrl, logger, throttle: false, retry: false });
    await admitTrigger({
      event: "issue_comment",
      payload: mentionPayload(name, number),
      deliveryId: "delivery-action-2",
      botLogin: "github-actions[bot]",
      botName: "tackle",
      logger,
      github: async () => github,
    });
    const loud = records().filter((r) => r.level >= 40);
    expect(loud.map((r) => r.msg)).toEqual(["could not read .github/tackle.yml"]);
    expect(String(loud[0]!.err)).toMatch(/500/);
  });
});
