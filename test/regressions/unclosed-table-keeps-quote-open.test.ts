// Broken (red team of #20, eighteenth pass, triggers: writer-prose HTML in a quote): src/triggers/writer-prose.ts ›
// hiddenByHtml lets a `<table>` tag hide only itself, and maskNonProse ends a block quote where markdown-it ends
// it. But an HTML `<table>` left open inside a block quote keeps the quote open in the browser: `</blockquote>`
// is ignored inside a table (the table is a scope boundary, HTML § "in table" insertion mode), and everything
// after it in the document is foster-parented to just before the table, which is inside the quote. Rendered by
// cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes -e autolink -e tagfilter -e tasklist -e strikethrough`):
// `They wrote:\n\n> <table>\n@tackle approve` is `<p>They wrote:</p>\n<blockquote>\n<table>\n</blockquote>\n<p>@tackle
// approve</p>`, which parse5 (a browser's tree builder, as GitHub's sanitizer's parser) turns into body >
// blockquote > p: the command reads as part of the quote. So a maintainer who quotes a text beginning with
// `<table>` by prefixing its first line (the rest lazy) sees the whole text, the command included, quoted.
// parseCommand reads `approve`.
// Fixed: a command counts only where it starts the comment (parse-command.ts › startsText): nothing
// before it can open a quote, code or hidden HTML around it; further down it gets the help text.
// What should hold: a command GitHub shows inside a quote does not count: an HTML element left open in a quote
// (a table, and anything else the parser keeps the quote open for) hides what follows.
import { describe, expect, it } from "vitest";
import { actsOn } from "./invocation-acts.js";
import { BOT_LOGIN } from "../unit/triggers/webhook-examples.js";

const _options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("an HTML table left open in a quote", () => {
  it.each([
    // body > blockquote > (p "@tackle approve", table)
    ["the next line", "They wrote:\n\n> <table>\n@tackle approve\n"],
    // body > blockquote > (p, table > tbody > tr > td "log")
    ["after a blank line", "> <table><tr><td>log</td></tr>\n\n@tackle approve\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(actsOn(body)).toBe("nothing");
  });
});
