import { afterEach, describe, expect, it } from "vitest";
import { fixTemperatureScript, OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { assign, botComments, sentToModel } from "./trigger-helpers.js";

describe("an issue assigned to the bot becomes a draft pull request", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("reacts, tracks, pushes the fix with the host's token and opens a draft PR that fixes the issue", async () => {
    h = await startHarness({ script: fixTemperatureScript() });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203", body: "It should be 212." });
    const response = await assign(h, issue.number, { title: issue.title });
    expect(response.status).toBe(200);
    await h.app.queue.idle();

    // The branch holds the fix, pushed through smart HTTP.
    const fixed = await h.gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "src/temperature.js");
    expect(fixed).toContain("/ 5 + 32;");
    expect(fixed).not.toContain("/ 5 + 23;");

    // One draft PR from the stable branch, closing the issue.
    const pulls = h.gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    const pull = await h.gh.pullJson(OWNER, REPO, pulls[0]!.number);
    expect(pull?.draft).toBe(true);
    expect(pull?.head.ref).toBe(`tackle/issue-${issue.number}`);
    expect(pull?.base.ref).toBe("main");
    expect(pull?.body).toMatch(new RegExp(`Fixes #${issue.number}\\b`));

    // 👀 on the issue, by the bot.
    const reactions = h.gh.reactions(OWNER, REPO, { issueNumber: issue.number });
    expect(reactions.map((r) => [r.content, r.user])).toContainEqual(["eyes", h.gh.botLogin]);

    // Exactly one tracking comment, edited to its final state with the PR link and the run's figures.
    const comments = botComments(h, issue.number);
    expect(comments).toHaveLength(1);
    const final = comments[0]!.body;
    expect(final).toContain("Tackle finished");
    expect(final).toContain(pull!.html_url);
    expect(final).toMatch(/\d+ turns/);
    expect(final).toMatch(/tokens/);
    const edits = h.gh.requests({ method: "PATCH", route: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}" });
    expect(edits.length).toBeGreaterThanOrEqual(1);

    // The agent never saw a credential: no installation token in anything sent to the model.
    const tokens = h.gh.tokens().map((t) => t.token);
    expect(tokens.length).toBeGreaterThan(0);
    const sent = sentToModel(h);
    for (const token of tokens) expect(sent).not.toContain(token);
    expect(sent).not.toContain(h.gh.privateKeyPem.split("\n")[1]!);
    // ...and `env` inside the sandbox listed no secret.
    expect(sent).not.toContain(h.gh.webhookSecret);
    expect(sent).not.toContain(h.model.apiKey);
  });

  it("a sender with read permission triggers nothing: no model request, no push, one short reply", async () => {
    h = await startHarness({ script: fixTemperatureScript() });
    h.gh.setPermission(OWNER, REPO, "mallory", "read");
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Please do my homework" });
    const response = await assign(h, issue.number, { sender: "mallory" });
    expect(response.status).toBe(200);
    await h.app.queue.idle();
    expect(h.model.requests).toHaveLength(0);
    expect(await h.gh.branchSha(OWNER, REPO, `tackle/issue-${issue.number}`)).toBeUndefined();
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(h.gh.requests({ kind: "git" })).toHaveLength(0);
    expect(h.gh.reactions(OWNER, REPO, { issueNumber: issue.number })).toHaveLength(0);
    const replies = botComments(h, issue.number);
    // Exactly one short reply saying why (at most one, and never silent).
    expect(replies.length).toBeLessThanOrEqual(1);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toMatch(/write access/);
  });

  it("a permission API error refuses (fail closed)", async () => {
    h = await startHarness({ script: fixTemperatureScript() });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Fix it" });
    h.gh.failNext({ count: 5, status: 502, match: { pathRegex: /\/collaborators\/.*\/permission$/ } });
    await assign(h, issue.number);
    await h.app.queue.idle();
    expect(h.model.requests).toHaveLength(0);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
  });

  it("draft_pr: false in the repo config opens a ready pull request when the model does not say", async () => {
    h = await startHarness({ script: fixTemperatureScript() });
    await h.gh.commitFiles(OWNER, REPO, "main", { ".github/tackle.yml": "draft_pr: false\n" });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    await assign(h, issue.number);
    await h.app.queue.idle();
    const pulls = h.gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    expect((await h.gh.pullJson(OWNER, REPO, pulls[0]!.number))?.draft).toBe(false);
  });

  it("an open PR for the branch is updated, never duplicated", async () => {
    h = await startHarness({ script: [...fixTemperatureScript(), ...secondRunScript()] });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    const send = (deliveryId: string) => assign(h!, issue.number, { deliveryId });
    await send("delivery-1");
    await h.app.queue.idle();
    await send("delivery-2");
    await h.app.queue.idle();
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    const readme = await h.gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "CHANGELOG.md");
    expect(readme).toContain("offset");
    // The second run built on the first run's commits (no force push lost them).
    const fixed = await h.gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "src/temperature.js");
    expect(fixed).toContain("/ 5 + 32;");
  });
});

function secondRunScript() {
  return [
    {
      content: [{ type: "tool_use" as const, name: "Write", input: { file_path: "CHANGELOG.md", content: "- Fix the Fahrenheit offset\n" } }],
      stop_reason: "tool_use" as const,
    },
    { content: [{ type: "tool_use" as const, name: "git_commit", input: { message: "Changelog" } }], stop_reason: "tool_use" as const },
    {
      content: [{ type: "tool_use" as const, name: "create_pull_request", input: { title: "Fix celsiusToFahrenheit offset", body: "Also a changelog." } }],
      stop_reason: "tool_use" as const,
    },
    { content: [{ type: "tool_use" as const, name: "task_done", input: { summary: "Added a changelog entry." } }], stop_reason: "tool_use" as const },
  ];
}
