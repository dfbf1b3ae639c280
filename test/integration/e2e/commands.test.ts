// `/tackle help|stop|retry` and unknown commands, through signed webhooks.
import { afterEach, describe, expect, it } from "vitest";
import { helpText } from "../../../src/triggers/index.js";
import { issuesAssignedPayload } from "../../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { gate, perJobScript } from "./script-helpers.js";
import { botComments, comment, deliver, lookScript, sessions } from "./trigger-helpers.js";

let h: Harness | undefined;
let release: (() => void) | undefined;
afterEach(async () => {
  release?.();
  release = undefined;
  await h?.close();
  h = undefined;
});

function assign(harness: Harness, issueNumber: number) {
  return deliver(
    harness,
    "issues",
    issuesAssignedPayload({ ...harness.gh.repoContext(OWNER, REPO), issueNumber, assignee: harness.gh.botLogin, sender: "alice" }),
  );
}

const trackingComments = (harness: Harness, issueNumber: number) => botComments(harness, issueNumber).filter((c) => c.body.includes("tackle:tracking"));

describe("commands", () => {
  it("/tackle help and an unknown command both answer with the help text, and start nothing", async () => {
    h = await startHarness({ script: lookScript() });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "How does this work?" });

    await comment(h, issue.number, "/tackle help");
    await comment(h, issue.number, "/tackle frobnicate");
    await h.app.queue.idle();

    const replies = botComments(h, issue.number);
    expect(replies.map((c) => c.body)).toEqual([helpText("tackle"), helpText("tackle")]);
    expect(replies[0]!.body).toContain("/tackle stop");
    expect(h.model.requests).toHaveLength(0);
  });

  it("/tackle stop cancels the running job within seconds; with nothing running it gets a short reply", async () => {
    const hold = gate();
    release = hold.open;
    h = await startHarness({ script: perJobScript(lookScript(), { hold: hold.wait }) });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "A long job" });

    await assign(h, issue.number);
    // The job is in its first model call, which never answers on its own.
    await h.gh.waitFor(() => h!.model.requests.length > 0, 20_000);
    const stoppedAt = Date.now();
    await comment(h, issue.number, "/tackle stop");
    await h.app.queue.idle();
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);

    const tracking = trackingComments(h, issue.number);
    expect(tracking).toHaveLength(1);
    expect(tracking[0]!.body).toContain("Tackle was stopped");
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(botComments(h, issue.number)).toHaveLength(1);

    await comment(h, issue.number, "/tackle stop");
    await h.app.queue.idle();
    const replies = botComments(h, issue.number).filter((c) => !c.body.includes("tackle:tracking"));
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toMatch(/no running Tackle job/i);
    expect(replies[0]!.body.length).toBeLessThan(200);
  });

  it("/tackle retry runs a new job with its own tracking comment, leaving the first job's as it was", async () => {
    h = await startHarness({ script: perJobScript(lookScript()) });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Flaky" });

    await assign(h, issue.number);
    await h.app.queue.idle();
    expect(sessions(h)).toBe(1);
    const [first] = trackingComments(h, issue.number);
    expect(first?.body).toContain("Tackle finished");

    await comment(h, issue.number, "/tackle retry");
    await h.app.queue.idle();
    expect(sessions(h)).toBe(2);
    const tracking = trackingComments(h, issue.number);
    expect(tracking).toHaveLength(2);
    expect(tracking[0]).toEqual(first);
    expect(tracking[1]!.body).toContain("Tackle finished");
    const jobIds = tracking.map((c) => /job=(\S+) -->/.exec(c.body)?.[1]);
    expect(new Set(jobIds).size).toBe(2);
    // Nothing else: no reply to the command, no third comment.
    expect(botComments(h, issue.number)).toHaveLength(2);
  });
});
