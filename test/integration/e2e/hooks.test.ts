/**
 * Repository hooks end to end (issue #12): signed webhook → job → PR, on a repository whose default
 * branch's `.github/tackle.yml` has a PreToolUse hook on `Bash` running `.tackle/hooks/deny-rm.sh`
 * (as `$TACKLE_HOOKS_DIR/deny-rm.sh`, the default branch's read-only copy), which exits 2 with a reason
 * for commands containing `rm -rf`. The model sees the denial as the tool result, a command that does
 * not match runs, and the tracking comment counts the denial. Then a job on a pull request whose head
 * rewrote the script to allow everything: the default branch's script still decides.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedBlock, ScriptedModel, ScriptedTurn } from "../../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { turnIndex } from "./script-helpers.js";
import { assign, botComments, comment } from "./trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const REASON = "rm -rf is not allowed in this repository; delete the files you mean one by one";
const DENY_RM = `#!/bin/bash
input=$(cat)
if printf '%s' "$input" | grep -q 'rm -rf'; then
  echo "${REASON}" >&2
  exit 2
fi
`;
const CONFIG = `hooks:
  PreToolUse:
    - matcher: Bash
      command: '"$TACKLE_HOOKS_DIR/deny-rm.sh"'
`;
const FILES = {
  ".github/tackle.yml": CONFIG,
  ".tackle/hooks/deny-rm.sh": { content: DENY_RM, executable: true as const },
  "build/keep.txt": "generated, but keep it\n",
};

const call = (id: string, name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", id, name, input });
const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

const SESSION: ScriptedTurn[] = [
  turn(call("toolu_rm", "Bash", { command: "rm -rf build" })),
  turn(call("toolu_safe", "Bash", { command: "echo cleaned > NOTES.md && cat NOTES.md" })),
  turn(call("toolu_commit", "git_commit", { message: "Add notes" })),
  turn(call("toolu_pr", "create_pull_request", { title: "Notes", body: "Adds notes." })),
  turn(call("toolu_done", "task_done", { summary: "Added the notes; the hook refused rm -rf." })),
];

const script: ScriptedModel = (request) => {
  const next = SESSION[turnIndex(request)];
  if (next === undefined) throw new Error("the session went past its script");
  return next;
};

/** What the model was sent back for one tool call: its text and whether it is an error. */
function toolResult(h: Harness, id: string): { text: string; isError: boolean } {
  for (const request of h.model.requests) {
    for (const message of (request.body.messages ?? []) as Array<{ content: unknown }>) {
      if (!Array.isArray(message.content)) continue;
      const block = (message.content as Array<{ type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }>).find(
        (b) => b.type === "tool_result" && b.tool_use_id === id,
      );
      if (block === undefined) continue;
      const text =
        typeof block.content === "string" ? block.content : ((block.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");
      return { text, isError: block.is_error === true };
    }
  }
  throw new Error(`no tool result for ${id} reached the model`);
}

function trackingComment(h: Harness, issueNumber: number): string {
  const tracking = botComments(h, issueNumber).filter((c) => c.body.includes("tackle:tracking"));
  expect(tracking).toHaveLength(1);
  return tracking[0]!.body;
}

async function harnessWithHook(): Promise<Harness> {
  const h = await startHarness({ script });
  cleanups.push(() => h.close());
  await h.gh.commitFiles(OWNER, REPO, "main", FILES, { message: "A hook against rm -rf" });
  return h;
}

/** The denial reached the model as the result of the rm call; the other command ran; build/ survived. */
async function expectHookDecided(h: Harness, branch: string, issueNumber: number): Promise<void> {
  expect(toolResult(h, "toolu_rm")).toEqual({ text: `Denied by a PreToolUse hook: ${REASON}`, isError: true });
  expect(toolResult(h, "toolu_safe")).toEqual({ text: "cleaned\n[exit code 0]", isError: false });
  expect(await h.gh.readFile(OWNER, REPO, branch, "build/keep.txt")).toBe("generated, but keep it\n");
  expect(await h.gh.readFile(OWNER, REPO, branch, "NOTES.md")).toBe("cleaned\n");
  const body = trackingComment(h, issueNumber);
  expect(body).toContain("✅ Tackle finished");
  expect(body).toContain("Hooks denied 1 tool call: `Bash`.");
}

describe("hooks end to end", () => {
  it("a PreToolUse hook denies a matching Bash command with its reason, and lets the others run", async () => {
    const h = await harnessWithHook();
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Clean up the build output and add notes" });

    expect((await assign(h, issue.number)).status).toBe(200);
    await h.app.queue.idle();

    expect(h.model.requests).toHaveLength(SESSION.length);
    await expectHookDecided(h, `tackle/issue-${issue.number}`, issue.number);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
  });

  it("on a pull request whose head rewrote the hook's script to allow everything, the default branch's script decides", async () => {
    const h = await harnessWithHook();
    const head = "feature/no-hook";
    const allowAll = "#!/bin/bash\nexit 0\n";
    const pull = await h.gh.addPullRequest({
      owner: OWNER,
      repo: REPO,
      head,
      title: "Relax the hook",
      files: { ".tackle/hooks/deny-rm.sh": { content: allowAll, executable: true } },
    });

    await comment(h, pull.number, "@tackle clean up the build output and add notes", { isPullRequest: true });
    await h.app.queue.idle();

    await expectHookDecided(h, head, pull.number);
    // The checkout had the permissive script all along; it never ran.
    expect(await h.gh.readFile(OWNER, REPO, head, ".tackle/hooks/deny-rm.sh")).toBe(allowAll);
  });
});
