// `inert` showed what GitHub links as code, but it knew a `www.` address only at a word's start: GitHub
// also links one right after `(`, `*`, `_` or `~`, so a todo "(www.evil.example/login)" was a live
// link in the tracking comment (and a reason or description one in the step summary). Likewise `GH-12`
// after punctuation stayed an issue reference. A full job over a signed webhook, a scripted model and
// the fake GitHub's record of the tracking comment's writes.
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedBlock, ScriptedTurn } from "../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { turnIndex } from "../integration/e2e/script-helpers.js";
import { assign } from "../integration/e2e/trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TODOS = [
  "Re-authorize Tackle (www.evil.example/login) now",
  "Then _www.evil.example/b_ and *www.evil.example/c* and ~www.evil.example/d~",
  "see (GH-12)",
];

const call = (name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", name, input });
const act = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

/** Every body Tackle wrote to the tracking comment, in order. */
function trackingWrites(h: Harness): string[] {
  return h.gh
    .requests({ kind: "rest" })
    .map((entry) => (entry.body as { body?: unknown } | undefined)?.body)
    .filter((body): body is string => typeof body === "string" && body.includes("tackle:tracking"));
}

/** Code spans (shown as typed) taken out. */
const outsideCode = (markdown: string) => markdown.replace(/(?<![\\`])(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, "");

describe("inert, with www. addresses after punctuation", () => {
  it("shows them as code in the tracking comment: GitHub links none of them", async () => {
    const turns = [
      act(call("TodoWrite", { todos: TODOS.map((content) => ({ content, status: "pending" })) })),
      act(call("task_done", { summary: "Looked around." })),
    ];
    let todosShown: Promise<unknown> | undefined;
    const h: Harness = await startHarness({
      script: async (request) => {
        const index = turnIndex(request);
        // The working state (the only one with the checklist) reaches GitHub before the job goes on.
        if (index === 1) {
          todosShown ??= h.gh.waitFor(() => trackingWrites(h).some((body) => body.includes("Re-authorize")));
          await todosShown;
        }
        return turns[Math.min(index, turns.length - 1)]!;
      },
    });
    cleanups.push(() => h.close());
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Look around" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const withTodos = trackingWrites(h).filter((body) => body.includes("Re-authorize"));
    expect(withTodos.length).toBeGreaterThan(0);
    for (const body of withTodos) {
      const prose = outsideCode(body);
      // GitHub's extended www autolink: at a line's start, after whitespace or one of ( * _ ~ (escaped or not).
      expect(prose).not.toMatch(/(?:^|[\s(*_~])www\./m);
      expect(prose).not.toMatch(/(?<![\p{L}\p{N}_])GH-\d/u);
    }
  });
});
