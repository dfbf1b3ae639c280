// Triggers on pull requests: the job works on the PR's own head branch (new commits, never a force
// push, no second PR); a fork's head gets a reply saying why not.
import { afterEach, describe, expect, it } from "vitest";
import { pullRequestReviewCommentCreatedPayload, pullRequestReviewSubmittedPayload } from "../../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { firstUserText } from "./script-helpers.js";
import { botComments, comment, deliver, editScript, isAncestor, sessions } from "./trigger-helpers.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HEAD = "feature/docs";

async function openPull(harness: Harness): Promise<{ number: number; headSha: string }> {
  const pull = await harness.gh.addPullRequest({ owner: OWNER, repo: REPO, head: HEAD, title: "Docs", files: { "docs/guide.md": "# Guide\n" } });
  return { number: pull.number, headSha: (await harness.gh.branchSha(OWNER, REPO, HEAD))! };
}

/** The job pushed new commits onto the PR's head, on top of the old head, and opened nothing new. */
async function expectWorkedOnHead(harness: Harness, pull: { number: number; headSha: string }, file: string): Promise<void> {
  const newHead = await harness.gh.branchSha(OWNER, REPO, HEAD);
  expect(newHead).toBeDefined();
  expect(newHead).not.toBe(pull.headSha);
  expect(await isAncestor(harness, pull.headSha, newHead!)).toBe(true);
  expect(await harness.gh.readFile(OWNER, REPO, HEAD, file)).toBe("done\n");
  expect(await harness.gh.readFile(OWNER, REPO, HEAD, "docs/guide.md")).toBe("# Guide\n");
  expect(harness.gh.pulls(OWNER, REPO).map((p) => p.number)).toEqual([pull.number]);
  expect(await harness.gh.branchSha(OWNER, REPO, `tackle/issue-${pull.number}`)).toBeUndefined();
  const tracking = botComments(harness, pull.number).filter((c) => c.body.includes("tackle:tracking"));
  expect(tracking).toHaveLength(1);
  expect(tracking[0]!.body).toContain("Tackle finished");
}

describe("pull request triggers", () => {
  it("a comment on a same-repository PR adds commits to its head branch: no new PR, no force push", async () => {
    h = await startHarness({ script: editScript("docs/note.md", "done\n") });
    const pull = await openPull(h);
    await comment(h, pull.number, "@tackle add a note to the docs", { isPullRequest: true });
    await h.app.queue.idle();
    expect(firstUserText(h.model.requests[0]!.body)).toContain("add a note to the docs");
    await expectWorkedOnHead(h, pull, "docs/note.md");
  });

  it("a comment on a fork's PR gets one reply saying why not: no model call, no push", async () => {
    h = await startHarness({ script: editScript("docs/note.md", "done\n") });
    await h.gh.addRepo({ owner: "eve", name: REPO, forkOf: { owner: OWNER, name: REPO } });
    const pull = await h.gh.addPullRequest({ owner: OWNER, repo: REPO, head: "patch-1", headOwner: "eve", files: { "fix.txt": "eve\n" } });
    const forkHead = await h.gh.branchSha("eve", REPO, "patch-1");

    await comment(h, pull.number, "@tackle fix the tests", { isPullRequest: true });
    await h.app.queue.idle();

    expect(h.model.requests).toHaveLength(0);
    expect(h.gh.requests({ kind: "git" })).toHaveLength(0);
    expect(await h.gh.branchSha("eve", REPO, "patch-1")).toBe(forkHead);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    const replies = botComments(h, pull.number).filter((c) => !c.body.includes("tackle:tracking"));
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toContain("eve/widgets");
    expect(replies[0]!.body).toMatch(/can't push to this pull request/);
    const tracking = botComments(h, pull.number).filter((c) => c.body.includes("tackle:tracking"));
    expect(tracking).toHaveLength(1);
    expect(tracking[0]!.body).toMatch(/fork/);
  });

  it("pull_request_review.submitted mentioning the bot works on the PR's head", async () => {
    h = await startHarness({ script: editScript("docs/review.md", "done\n") });
    const pull = await openPull(h);
    await deliver(
      h,
      "pull_request_review",
      pullRequestReviewSubmittedPayload({
        ...h.gh.repoContext(OWNER, REPO),
        pullNumber: pull.number,
        head: { ref: HEAD, sha: pull.headSha },
        reviewBody: "Nearly there. @tackle add a review note",
        reviewState: "changes_requested",
        reviewer: "alice",
      }),
    );
    await h.app.queue.idle();
    expect(sessions(h)).toBe(1);
    expect(firstUserText(h.model.requests[0]!.body)).toContain("add a review note");
    await expectWorkedOnHead(h, pull, "docs/review.md");
  });

  it("pull_request_review_comment.created mentioning the bot works on the PR's head", async () => {
    h = await startHarness({ script: editScript("docs/inline.md", "done\n") });
    const pull = await openPull(h);
    const body = "@tackle split this guide";
    const review = await h.gh.addReviewComment({ owner: OWNER, repo: REPO, pullNumber: pull.number, body, user: "alice", path: "docs/guide.md" });
    await deliver(
      h,
      "pull_request_review_comment",
      pullRequestReviewCommentCreatedPayload({
        ...h.gh.repoContext(OWNER, REPO),
        pullNumber: pull.number,
        head: { ref: HEAD, sha: pull.headSha },
        commentBody: body,
        commentId: review.id,
        commenter: "alice",
        path: "docs/guide.md",
      }),
    );
    await h.app.queue.idle();
    expect(sessions(h)).toBe(1);
    expect(firstUserText(h.model.requests[0]!.body)).toContain("split this guide");
    expect(h.gh.reactions(OWNER, REPO, { reviewCommentId: review.id }).map((r) => r.content)).toEqual(["eyes"]);
    await expectWorkedOnHead(h, pull, "docs/inline.md");
  });
});
