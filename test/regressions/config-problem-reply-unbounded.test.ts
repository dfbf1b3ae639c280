// The reply Tackle posts about a bad `.github/tackle.yml` (src/worker/process-job.ts › configProblemComment)
// cuts each problem to PROBLEM_CHARS (2,000) but not their number: every unknown key, every refused env
// name, every bad `blocked_commands` entry is one more line. A repository's file of 100 unknown keys of
// 1,000 characters (YAML's longest implicit key) is a reply of ~103,000 characters; GitHub refuses a
// comment over 65,536 ("body is too long"), the createComment throws, and the maintainer gets a tracking
// comment saying that a GitHub call failed instead of what is wrong with the file. The same holds for the
// agents-and-skills reply (one problem per unknown front-matter key). Measured here: the fake GitHub keeps
// the reply as posted, so its length shows what GitHub would have been sent.
import { afterEach, describe, expect, it } from "vitest";
import { OWNER, REPO, startHarness } from "../integration/e2e/harness.js";
import { assign, botComments, setRepoConfig } from "../integration/e2e/trigger-helpers.js";

/** GitHub's limit for an issue comment's body. */
const GITHUB_COMMENT_CHARS = 65_536;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the reply about a config with very many problems", () => {
  it("fits in one GitHub comment and still says what is wrong", async () => {
    const h = await startHarness({ script: [] });
    cleanups.push(() => h.close());
    const keys = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, "0")}${"k".repeat(997)}: 1`).join("\n");
    await setRepoConfig(h, `${keys}\n`);
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Anything" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const reply = botComments(h, issue.number).find((c) => c.body.includes("could not use"));
    expect(reply).toBeDefined();
    expect(reply!.body).toContain("unknown key");
    expect(reply!.body.length).toBeLessThanOrEqual(GITHUB_COMMENT_CHARS);
  });
});
