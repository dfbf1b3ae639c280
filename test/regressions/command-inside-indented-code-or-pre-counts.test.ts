// Broken (red team of #20, fourteenth pass, webhooks and triggers): parseCommand promises that
// "mentions inside code, block quotes and HTML comments do not count: quoting an earlier request must
// not start a second job", but src/triggers/parse-command.ts › maskNonProse blanks only fenced code,
// code spans (src/util/markdown-code.ts › codeRanges), `<!-- -->` and lines starting with `>`. Three
// shapes GitHub renders as code or as a quote are read as the writer's own words: an indented code block
// (four spaces after a blank line, how a log is often pasted), an HTML `<pre>` block, and the lazy
// continuation line of a block quote (a line right after `> …` belongs to the quote). A maintainer who
// pastes an outsider's log or text that way (a line `/tackle approve`, or `@tackle <instructions>`)
// answers the job's pending question, or starts a job whose instructions are the outsider's words, taken
// as a writer's. Measured: parseTrigger of a writer's `issue_comment.created` gave a `command` trigger
// (`approve`) for each body below.
// What should hold: a command or mention that GitHub shows inside code or a quote is not an invocation:
// each body parses as `ignored` (it does not mention the bot in prose).
// Fixed: maskNonProse also blanks `<pre>` blocks, indented code after a blank line and a quote's lazy continuation lines (src/triggers/parse-command.ts › maskQuotesAndIndentedCode).
import { describe, expect, it } from "vitest";
import { parseTrigger } from "../../src/triggers/parse-trigger.js";
import { BOT_LOGIN, issueComment } from "../unit/triggers/webhook-examples.js";

const options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("a command a writer's comment shows as code or as a quote", () => {
  it.each([
    ["an indented code block", "The reporter's output, for reference:\n\n    $ npm test\n    /tackle approve\n    FAIL src/a.test.ts\n"],
    ["an HTML <pre> block", "The reporter's output:\n\n<pre>\n$ npm test\n/tackle approve\nFAIL src/a.test.ts\n</pre>\n"],
    ["a block quote's lazy continuation line", "They wrote:\n\n> $ npm test\n/tackle approve\n\nLooking into it.\n"],
  ])("%s is not a command", (_shape, body) => {
    const result = parseTrigger("issue_comment", issueComment(body), options);
    expect(result.kind).toBe("ignored");
  });
});
