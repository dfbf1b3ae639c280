// The redacting GitHub client's last pass (`maskSurface`) masked text that was already escaped, and a
// mask may swallow any character: a private key block from its BEGIN to its END line, a URL's
// password up to its `@`. The agent's words are masked before they are escaped, but the escaping first
// drops invisible characters, so a BEGIN line with a zero-width space in it (or a URL password with a
// BOM in it) passed the first mask and was found only by the last, after the escaping. The mask then
// took a code span's opening backtick with it, and the span's content, kept as written because code is
// inert, was prose again: a live link, an image and a ping under Tackle's name. A mask right before a
// URL's `@` made a ping too (`[REDACTED]@octocat`). And without any invisible character, a mask that
// took the backslash escaping a stray backtick (and not the backtick) paired it with a kept span's
// opener. A full job over a signed webhook, a scripted model and the fake GitHub's record of what was
// posted.
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedBlock, ScriptedTurn } from "../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { perJobScript } from "../integration/e2e/script-helpers.js";
import { assign } from "../integration/e2e/trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LIVE = '[Re-authorize Tackle](https://evil.example/login) <img src="https://evil.example/p.png"> @octocat';
/** A private key's BEGIN line the first mask misses (a zero-width space), and its END line inside a code span. */
const PEM_LURE = `Done. -----BEG\u200bIN PRIVATE KEY----- then \`-----END PRIVATE KEY----- ${LIVE}\``;
/** A URL whose password holds a BOM (whitespace to the first mask), its `@` opening a code span. */
const URL_LURE = `Done. x://u:A\ufeff\`@ ${LIVE}\``;
/**
 * No invisible character needed: 7 characters after `x-access-token:` are too few to mask, but the
 * backslash escaping the stray `` ` `` makes 8, and the mask takes the backslash, not the backtick.
 */
const TOKEN_LURE = `Done. x-access-token:1234567\`\` prose \`${LIVE}\` end`;
/** A URL password right before a login: masked, `]@octocat` pings. */
const PING_LURE = "Done. x://u:p\ufeffw@octocat here";

const call = (name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", name, input });
const act = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

/** The Markdown GitHub renders as such: fenced blocks and code spans (shown as typed) taken out. */
const outsideCode = (markdown: string) => markdown.replace(/(?<![\\`])(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, "");

function expectNothingLive(body: string): void {
  const prose = outsideCode(body);
  expect(prose).not.toMatch(/(?<!\\)\]\(https/);
  expect(prose).not.toMatch(/(?<!\\)<img\b/i);
  expect(prose).not.toMatch(/(?<![\p{L}\p{N}_`])@octocat/u);
}

describe("the last mask on Tackle's surfaces", () => {
  it("cannot take a code span's backtick or the text before an @ with it, so no link, image or ping becomes live", async () => {
    const h: Harness = await startHarness({
      script: perJobScript([
        act(call("TodoWrite", { todos: [{ content: PEM_LURE, status: "in_progress" }] })),
        act(call("ReportToIssue", { body: PEM_LURE })),
        act(call("ReportToIssue", { body: URL_LURE })),
        act(call("ReportToIssue", { body: PING_LURE })),
        act(call("ReportToIssue", { body: TOKEN_LURE })),
        act(call("task_done", { summary: PEM_LURE })),
      ]),
    });
    cleanups.push(() => h.close());
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Look around" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const bodies = h.gh
      .requests({ kind: "rest" })
      .filter((entry) => entry.method === "POST" || entry.method === "PATCH")
      .map((entry) => (entry.body as { body?: unknown } | undefined)?.body)
      .filter((body): body is string => typeof body === "string");
    // The four reports and the tracking comment's writes were all posted, each masked.
    expect(bodies.filter((body) => body.includes("Done.")).length).toBeGreaterThanOrEqual(5);
    expect(bodies.join("\n")).toContain("REDACTED");
    for (const body of bodies) expectNothingLive(body);
  });
});
