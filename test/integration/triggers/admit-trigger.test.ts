// admitTrigger, the admission both the App and the Action go through, against the fake GitHub (the
// repo config, the permission endpoint, replies and the thread are real REST calls).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenClient, type GitHubClient } from "../../../src/github/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { admitTrigger, type AdmitTriggerOptions } from "../../../src/triggers/index.js";
import { issueCommentCreatedPayload, startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";

const OWNER = "acme";

describe("admitTrigger", () => {
  let fake: FakeGitHub;
  let github: GitHubClient;
  let repos = 0;

  beforeAll(async () => {
    fake = await startFakeGitHub();
    // The App is installed on the owner with its first repository.
    await fake.addRepo({ owner: OWNER, name: "seed", files: { "README.md": "# seed\n" } });
    github = tokenClient({ token: fake.mintToken({ owner: OWNER }), apiUrl: fake.apiUrl, logger: silentLogger, throttle: false, retry: false });
  });
  afterAll(() => fake.close());

  /** A fresh repository (with `config` as .github/tackle.yml) and an issue on it. */
  const repoWithIssue = async (config?: string) => {
    const name = `widgets-${++repos}`;
    await fake.addRepo({ owner: OWNER, name, files: { "README.md": "# w\n", ...(config ? { ".github/tackle.yml": config } : {}) } });
    fake.setPermission(OWNER, name, "alice", "write");
    fake.setPermission(OWNER, name, "rita", "read");
    const issue = fake.addIssue({ owner: OWNER, repo: name, title: "Broken", body: "It breaks." });
    return { name, number: issue.number };
  };

  let clientsAsked = 0;
  const admit = (name: string, number: number, body: string, options: Partial<AdmitTriggerOptions> & { commenter?: string } = {}) =>
    admitTrigger({
      event: "issue_comment",
      payload: issueCommentCreatedPayload({
        ...fake.repoContext(OWNER, name),
        issueNumber: number,
        commentBody: body,
        commenter: options.commenter ?? "alice",
      }),
      deliveryId: "delivery-1",
      botLogin: fake.botLogin,
      botName: "tackle",
      logger: silentLogger,
      github: async () => {
        clientsAsked += 1;
        return github;
      },
      ...options,
    });

  it("an event that is not a trigger is ignored before any GitHub call", async () => {
    const { name, number } = await repoWithIssue();
    const before = clientsAsked;
    const admission = await admit(name, number, "just a comment");
    expect(admission.status).toBe("ignored");
    expect(clientsAsked).toBe(before);
  });

  it("a writer's mention is a task: its job id, its data, and the thread frozen on request", async () => {
    const { name, number } = await repoWithIssue();
    const admission = await admit(name, number, "@tackle fix it please");
    if (admission.status !== "task") throw new Error(`expected a task, got ${admission.status}`);
    expect(admission.data).toMatchObject({
      jobId: `${OWNER}-${name}-${number}-delivery-1`,
      deliveryId: "delivery-1",
      installationId: fake.installationId(OWNER),
      repo: { owner: OWNER, name },
      number,
      isPullRequest: false,
      trigger: { kind: "issue_comment", actor: "alice", instructions: "fix it please" },
    });
    expect(admission.commandName).toBe("tackle");
    const thread = await admission.freeze();
    expect(thread?.body).toBe("It breaks.");

    // The Action names its jobs by its run instead of the delivery.
    const inAction = await admit(name, number, "@tackle fix it please", { jobKey: "run-5-1" });
    expect(inAction.status === "task" && inAction.data.jobId).toBe(`${OWNER}-${name}-${number}-run-5-1`);
  });

  it("a read-only user is refused with the gate's one reply", async () => {
    const { name, number } = await repoWithIssue();
    const admission = await admit(name, number, "@tackle fix it", { commenter: "rita" });
    expect(admission.status).toBe("refused");
    const replies = fake.comments(OWNER, name, number).filter((c) => c.user === fake.botLogin);
    expect(replies).toHaveLength(1);
  });

  it("the repo's phrase renames the command; a turned-off trigger says so", async () => {
    const renamed = await repoWithIssue("trigger:\n  phrase: robot\n");
    const command = await admit(renamed.name, renamed.number, "/robot help");
    expect(command).toMatchObject({ status: "command", commandName: "robot", trigger: { kind: "command", command: "help" } });
    expect((await admit(renamed.name, renamed.number, "@tackle fix it")).status).toBe("ignored");

    const off = await repoWithIssue("trigger:\n  on_comment: false\n");
    expect(await admit(off.name, off.number, "@tackle fix it")).toEqual({
      status: "ignored",
      reason: "the comment trigger is turned off in .github/tackle.yml",
    });
  });

  it("no client for the event (an App delivery without an installation): ignored", async () => {
    const { name, number } = await repoWithIssue();
    const admission = await admit(name, number, "@tackle fix it", { github: async () => null });
    expect(admission.status).toBe("ignored");
  });
});
