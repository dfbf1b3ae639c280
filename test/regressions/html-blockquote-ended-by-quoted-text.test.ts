// Broken (red team of #20, sixteenth pass, triggers: parse-command): src/triggers/parse-command.ts ›
// blankHtmlQuotesAndCode counts `<blockquote>`/`</blockquote>` tags in the text before indented code and
// the escapes of Markdown are known: a `</blockquote>` the quoted text shows as text (backslash-escaped,
// `\</blockquote>`, or inside indented code) closes the quote for the mask, although GitHub renders it as
// the characters `</blockquote>` inside the quote (checked with the CommonMark reference parser:
// `<p>see &lt;/blockquote&gt;\n/tackle approve</p>` inside `<blockquote>`). Whoever wrote the quoted text
// chooses where the quote ends for Tackle: a maintainer who wraps an outsider's words in
// `<blockquote>…</blockquote>` answers the pending question with the outsider's `/tackle approve`.
// Measured: parseTrigger of a writer's `issue_comment.created` gave a `command` (`approve`) for both.
// Fixed: block structure is decided by a CommonMark parser (markdown-it's block rules) instead of rules of
// our own; only paragraphs outside quotes and HTML code/quote elements are prose (triggers/writer-prose.ts).
// What should hold: only a tag GitHub reads as a tag closes an HTML quote: each body parses as `ignored`.
import { describe, expect, it } from "vitest";
import { parseTrigger } from "../../src/triggers/parse-trigger.js";
import { BOT_LOGIN, issueComment } from "../unit/triggers/webhook-examples.js";

const options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };
const quoting = (outsider: string) => `They wrote:\n\n<blockquote>\n\n${outsider}\n\n</blockquote>\n`;

describe("an HTML quote whose quoted text shows a closing tag as text", () => {
  it.each([
    ["a backslash-escaped closing tag", quoting("I saw \\</blockquote> in the output\n/tackle approve")],
    ["a closing tag in indented code", quoting("    </blockquote>\n\n/tackle approve")],
  ])("%s does not end the quote", (_shape, body) => {
    const result = parseTrigger("issue_comment", issueComment(body), options);
    expect(result.kind).toBe("ignored");
  });
});
