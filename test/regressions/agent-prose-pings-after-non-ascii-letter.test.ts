// `agentProse` broke a mention only when the `@` had no letter before it, any letter, Unicode's
// included; but GitHub's mention filter takes an ASCII word boundary, so `é@octocat` or `日本@octocat`
// in a ReportToIssue comment still pinged @octocat under Tackle's name. And `owner/repo@a1b2c3d`, a
// reference to another repository's commit, stayed live though `owner/repo#12` did not. A full job
// over a signed webhook, a scripted model and the fake GitHub's record of the comment.
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedBlock, ScriptedTurn } from "../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { perJobScript } from "../integration/e2e/script-helpers.js";
import { assign, botComments } from "../integration/e2e/trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const call = (name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", name, input });
const act = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

describe("a ReportToIssue comment with a mention after a non-ASCII letter", () => {
  it("pings nobody and references no other repository's commit; an e-mail stays as written", async () => {
    const h: Harness = await startHarness({
      script: perJobScript([
        act(call("ReportToIssue", { body: "Thanks é@octocat and 日本@hubot, see octo/other@a1b2c3d4 or write to me@example.com" })),
        act(call("task_done", { summary: "Reported." })),
      ]),
    });
    cleanups.push(() => h.close());
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Look around" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const report = botComments(h, issue.number).find((c) => c.body.includes("Thanks"));
    expect(report).toBeDefined();
    expect(report!.body).not.toMatch(/@(octocat|hubot|a1b2c3d4)/);
    expect(report!.body).toContain("é@\u2060octocat");
    expect(report!.body).toContain("octo/other@\u2060a1b2c3d4");
    expect(report!.body).toContain("me@example.com");
  });
});
