// Broken (red team of #20, eighteenth pass, triggers: writer-prose footnotes): src/triggers/writer-prose.ts ›
// hiddenByHtml finds footnote definitions with FOOTNOTE = /^ {0,3}\[\^[^\]\n]+\]:/m, only at a line's start.
// GFM (cmark-gfm's footnotes extension) opens a footnote definition wherever a block may start, also inside
// a list item or a block quote, and the definition's paragraph takes lazy continuation lines as any paragraph
// does. markdown-it (commonmark preset, no footnote rule) reads `[^1]: x` there as a link reference
// definition, which ends at its line, so the next line is a paragraph of its own outside the quote or list.
// Rendered by cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes -e autolink -e tagfilter -e tasklist
// -e strikethrough`): `- [^1]: x\n@tackle approve` is `<ul>\n<li></li>\n</ul>` (the definition nothing refers
// to is dropped with its lazy line: GitHub shows nothing of the command); `> [^1]: x\n@tackle approve` is an
// empty `<blockquote>`; with a reference (`Text[^1]\n\n- [^1]: x\n  @tackle approve`) the command is shown in
// section.footnotes > ol > li > p, a footnote, not the writer's prose. parseCommand reads `approve` in each.
// Fixed: a command counts only where it starts the comment (parse-command.ts › startsText): nothing
// before it can open a quote, code or hidden HTML around it; further down it gets the help text.
// What should hold: a command in a footnote definition (or dropped with one) does not count, wherever the
// definition is opened (in a list item, in a block quote, as the 17th pass fixed at the top level).
import { describe, expect, it } from "vitest";
import { actsOn } from "./invocation-acts.js";
import { BOT_LOGIN } from "../unit/triggers/webhook-examples.js";

const _options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("a footnote definition opened in a container", () => {
  it.each([
    // <ul>\n<li></li>\n</ul>: not shown at all
    ["in a bullet list item, lazy line", "- [^1]: x\n@tackle approve\n"],
    // <ol>\n<li></li>\n</ol>
    ["in an ordered list item, lazy line", "1. [^1]: x\n@tackle approve\n"],
    // <blockquote>\n</blockquote>
    ["in a block quote, lazy line", "> [^1]: https://example.com/report\n@tackle approve\n"],
    // <blockquote>\n</blockquote>\n<section class="footnotes">…<p><a …>https://example.com/report</a>\n@tackle approve …
    ["referenced, in a block quote", "See[^1]\n\n> [^1]: https://example.com/report\n@tackle approve\n"],
    // <blockquote><ul><li></li></ul></blockquote>
    ["in a list in a quote, lazy line", "> - [^1]: y\n@tackle approve\n"],
    // <section class="footnotes">…<li id="fn-1"><p>x\n@tackle approve …</p></li>…
    ["referenced, in a list item", "Text[^1]\n\n- [^1]: x\n  @tackle approve\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(actsOn(body)).toBe("nothing");
  });
});
