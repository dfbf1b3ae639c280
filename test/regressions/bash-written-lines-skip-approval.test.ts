// `require_approval_above` was checked only on Write and Edit previews: 1,500 lines written by Bash
// (or a script, a background command, a skill) were published with no question. The host's publish
// check now judges the threshold on the real change, from its own objects, and asks a maintainer
// through the job's approval gate before anything is pushed: approve pushes, deny pushes nothing.
import { afterEach, describe, expect, it } from "vitest";
import { issueCommentCreatedPayload, type ScriptedModel } from "../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { turnIndex } from "../integration/e2e/script-helpers.js";
import { assign, botComments, deliver } from "../integration/e2e/trigger-helpers.js";

const QUESTION_MARKER = "<!-- tackle:approval job=";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** 1,500 lines through Bash, committed, then create_pull_request and task_done. */
const bashThenPublish: ScriptedModel = (request) => {
  const turns = [
    { name: "Bash", input: { command: "seq 1 1500 > numbers.txt && git add numbers.txt && git commit -qm 'Add numbers'" } },
    { name: "create_pull_request", input: { title: "Add numbers", body: "1,500 lines." } },
    { name: "task_done", input: { summary: "Done." } },
  ];
  const turn = turns[Math.min(turnIndex(request), turns.length - 1)]!;
  return { content: [{ type: "tool_use", ...turn }], stop_reason: "tool_use" };
};

async function startJob(): Promise<{ harness: Harness; number: number; branch: string }> {
  const harness = await startHarness({ script: bashThenPublish });
  await harness.gh.commitFiles(OWNER, REPO, "main", { ".github/tackle.yml": "require_approval_above: 100\n" }, { message: "Tackle config" });
  const issue = harness.gh.addIssue({ owner: OWNER, repo: REPO, title: "Add the numbers" });
  expect((await assign(harness, issue.number)).status).toBe(200);
  return { harness, number: issue.number, branch: `tackle/issue-${issue.number}` };
}

const questionOf = (harness: Harness, number: number) => botComments(harness, number).find((c) => c.body.includes(QUESTION_MARKER));

/** Waits until the job asks, or until its branch reaches the remote without asking (the bug). */
async function askedOrPushed(harness: Harness, number: number, branch: string): Promise<"asked" | "pushed"> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (questionOf(harness, number)) return "asked";
    if ((await harness.gh.branchSha(OWNER, REPO, branch)) !== undefined) return "pushed";
    if (Date.now() > deadline) throw new Error("the job neither asked nor pushed");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function answer(harness: Harness, number: number, body: string): Promise<void> {
  const record = harness.gh.addComment({ owner: OWNER, repo: REPO, issueNumber: number, body, user: "alice" });
  await deliver(
    harness,
    "issue_comment",
    issueCommentCreatedPayload({ ...harness.gh.repoContext(OWNER, REPO), issueNumber: number, commentBody: body, commentId: record.id, commenter: "alice" }),
  );
}

const tracking = (harness: Harness, number: number) => botComments(harness, number).find((c) => c.body.includes("<!-- tackle:tracking"))?.body ?? "";

describe("require_approval_above at publish, on lines written by Bash", () => {
  it("asks before pushing; nothing is pushed until a maintainer approves, then the PR opens", async () => {
    const job = await startJob();
    h = job.harness;
    expect(await askedOrPushed(h, job.number, job.branch)).toBe("asked");
    const question = questionOf(h, job.number)!.body;
    expect(question).toContain("create_pull_request");
    expect(question).toMatch(/1500 lines, above the repository's require_approval_above of 100/);
    expect(await h.gh.branchSha(OWNER, REPO, job.branch)).toBeUndefined();
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);

    await answer(h, job.number, "/tackle approve");
    await h.app.queue.idle();
    expect(await h.gh.branchSha(OWNER, REPO, job.branch)).toMatch(/^[0-9a-f]{40}$/);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(tracking(h, job.number)).toContain("Tackle finished");
  });

  it("deny: nothing is pushed, and the end of the job does not ask again about the same commit", async () => {
    const job = await startJob();
    h = job.harness;
    expect(await askedOrPushed(h, job.number, job.branch)).toBe("asked");

    await answer(h, job.number, "/tackle deny too large for one PR");
    await h.app.queue.idle();
    expect(await h.gh.branchSha(OWNER, REPO, job.branch)).toBeUndefined();
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(botComments(h, job.number).filter((c) => c.body.includes(QUESTION_MARKER))).toHaveLength(1);
    expect(tracking(h, job.number)).toMatch(/nothing was published: push refused: .*require_approval_above of 100, and a maintainer did not approve/);
  });
});
