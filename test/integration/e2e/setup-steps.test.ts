// The repo config's setup commands run before the agent, sandboxed with outbound network, and the
// agent is told how they went.
import { afterEach, expect, it } from "vitest";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { firstUserText, perJobScript } from "./script-helpers.js";
import { assign } from "./trigger-helpers.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it("setup steps run before the first model call, with a default route (network), and failures reach the agent", async () => {
  h = await startHarness({
    script: perJobScript([
      {
        content: [
          {
            type: "tool_use",
            name: "Bash",
            input: {
              command: `cat .setup-marker; awk '$2 == "00000000" { found = 1 } END { exit !found }' /proc/net/route && echo agent-has-route || echo agent-no-route`,
            },
          },
        ],
        stop_reason: "tool_use",
      },
      { content: [{ type: "tool_use", name: "task_done", input: { summary: "Looked at the setup." } }], stop_reason: "tool_use" },
    ]),
  });
  await h.gh.commitFiles(OWNER, REPO, "main", {
    ".github/tackle.yml": [
      "setup:",
      "  - echo setup-ran > .setup-marker",
      "  - awk '$2 == \"00000000\" { found = 1 } END { exit !found }' /proc/net/route || exit 9",
      "  - echo boom >&2; exit 3",
      "",
    ].join("\n"),
  });
  const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Check the setup" });
  await assign(h, issue.number);
  await h.app.queue.idle();
  const first = firstUserText(h.model.requests[0]!.body);
  expect(first).toContain("## Setup steps");
  expect(first).toContain("`echo setup-ran > .setup-marker`: succeeded");
  // The sandbox of a setup step has a default route (slirp4netns), unlike the agent's commands.
  expect(first).toMatch(/\/proc\/net\/route \|\| exit 9`: succeeded/);
  expect(first).toContain("`echo boom >&2; exit 3`: failed (exit 3)");
  expect(first).toContain("boom");
  // The file the first step wrote is there for the agent.
  // What the agent's command printed: the tool_result of the second request.
  const messages = (h.model.requests[1]!.body as { messages: Array<{ content: unknown }> }).messages;
  const second = JSON.stringify(
    messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type?: string }) => b.type === "tool_result"),
  );
  expect(second).toContain("setup-ran");
  // ...while the agent's own commands have no network at all.
  expect(second).toContain("agent-no-route");
  expect(second).not.toContain("agent-has-route");
});
