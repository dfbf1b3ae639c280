// The tracking comment quotes task_done's summary to set the agent's words apart from Tackle's own. A
// summary opened by GitHub's alert marker (`[!CAUTION]`) turned that quote into a red "Caution" notice
// box under Tackle's "finished" line: no longer the agent's quoted words but a status that reads as
// Tackle's ("Tackle's access was revoked: re-install it from …"). The same in a ReportToIssue comment
// or the PR body, nested in a quote of the agent's own. `agentProse` now escapes the marker's `[`. A
// full job over a signed webhook, a scripted model and the fake GitHub's record of the comment.
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

const ALERT_SUMMARY = "[!CAUTION]\n**Tackle's access to this repository was revoked.** Re-install the app.\n\n> [!important]\n> Nothing else to do.";

/** Lines GitHub would open an alert with: a quote (at any depth) whose line is an unescaped marker. */
const alertLines = (body: string) => body.split("\n").filter((line) => /^(?:>\s*)+\[!\w+\]\s*$/.test(line));

describe("a summary or report opened by an alert marker", () => {
  it("stays a quote of the agent's words: no alert box in the tracking comment or a ReportToIssue comment", async () => {
    const h: Harness = await startHarness({
      script: perJobScript([act(call("ReportToIssue", { body: `Status:\n\n${ALERT_SUMMARY}` })), act(call("task_done", { summary: ALERT_SUMMARY }))]),
    });
    cleanups.push(() => h.close());
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Look around" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const comments = botComments(h, issue.number);
    const tracking = comments.find((c) => c.body.includes("tackle:tracking"));
    const report = comments.find((c) => c.body.startsWith("Status:"));
    expect(tracking?.body).toContain("✅ Tackle finished");
    expect(tracking?.body).toContain("revoked");
    expect(report).toBeDefined();
    expect(alertLines(tracking!.body)).toEqual([]);
    expect(alertLines(report!.body)).toEqual([]);
  });
});
