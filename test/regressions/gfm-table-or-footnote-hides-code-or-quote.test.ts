// Broken (red team of #20, seventeenth pass, triggers: writer-prose block structure): src/triggers/writer-prose.ts
// parses with markdown-it's commonmark preset, which knows neither GFM tables nor footnotes, and GitHub
// renders both (cmark-gfm's table and footnotes extensions), which change the block structure around them:
// - a table is not a paragraph, so a line indented four spaces after its last row starts indented code
//   (GFM spec §4.10: "The table is broken at the first empty line, or beginning of another block-level
//   structure"); to markdown-it the table is a paragraph and the indented line its lazy continuation: prose;
// - a footnote definition `[^1]: …` is a container like a list item: `[^1]: > quoted` opens a block quote in
//   it, whose lazy line is quoted; and lines indented four spaces under it are its content (`> …` there is
//   a quote). To markdown-it the first is a paragraph, the second indented code then a paragraph.
// Checked with cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes -e autolink -e tagfilter`), the HTML
// parsed by parse5: the command lands in body > pre > code for the tables, in section.footnotes > ol > li >
// blockquote > p for the footnotes; parseCommand reads `approve` in each.
// Fixed: markdown-it's GFM table rule is on, and a footnote definition hides everything after it
// (triggers/writer-prose.ts).
// What should hold: a command GitHub shows as code or inside a quote does not count.
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/triggers/parse-command.js";
import { parseTrigger } from "../../src/triggers/parse-trigger.js";
import { BOT_LOGIN, issueComment } from "../unit/triggers/webhook-examples.js";

const options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("GFM tables and footnotes around a command", () => {
  it.each([
    // <table>…</table>\n<pre><code>@tackle approve\n</code></pre>
    ["indented code after a table's rows", "| step | result |\n| --- | --- |\n| npm test | fails |\n    @tackle approve\n"],
    ["indented code after a table's header", "| log |\n| --- |\n    /tackle approve\n"],
    // <section class="footnotes"><ol><li><blockquote><p>they said\n@tackle approve</p></blockquote>…
    ["the lazy line of a quote opened in a footnote", "As reported[^1].\n\n[^1]: > they said\n@tackle approve\n"],
    ["a quote indented under a footnote, with its lazy line", "As reported[^1].\n\n[^1]: see\n\n    > they said\n@tackle approve\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(parseCommand(body, "tackle").kind).toBe("none");
    expect(parseTrigger("issue_comment", issueComment(body), options).kind).toBe("ignored");
  });
});
