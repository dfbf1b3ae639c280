// Broken (red team of #20, eighteenth pass, triggers: writer-prose HTML scan): src/triggers/writer-prose.ts ›
// hiddenByHtml reads HTML from the raw text: a comment ends at the next `-->`, a processing instruction at `?>`,
// CDATA at `]]>`, a tag at the next `>` outside quotes, whatever block each is in. CommonMark passes HTML through
// raw only inside the HTML block (or paragraph) that opened it: an HTML block opened inside a block quote or a
// list item ends with that container, and a closer written on a later line outside it is paragraph text, which
// cmark-gfm escapes (`--&gt;`, `?&gt;`, `]]&gt;`, `&quot;&gt;`). The browser never sees that closer: the comment
// runs to the end of the comment, and a processing instruction or CDATA (bogus comments to an HTML parser) ends at
// the first `>`, the one of `</blockquote>`, so the quote is never closed. Rendered by cmark-gfm 0.29.0.gfm.6
// (`--unsafe -e table -e footnotes -e autolink -e tagfilter -e tasklist -e strikethrough`), HTML parsed by parse5:
// - `> <!--\n-->\n@tackle approve` is `<blockquote>\n<!--\n</blockquote>\n<p>--&gt;\n@tackle approve</p>`: the
//   command is inside a comment, not shown;
// - `> <?\n?>\n@tackle approve` and `> <![CDATA[\n]]>\n@tackle approve`: the command in body > blockquote > p;
// - `> <div title="\n">\n@tackle approve\n">`: inside the attribute value, not shown;
// - `- <!--\n\n-->\n\n@tackle approve`: the same comment opened in a list item.
// parseCommand reads `approve` in each.
// Fixed: a command counts only where it starts the comment (parse-command.ts › startsText): nothing
// before it can open a quote, code or hidden HTML around it; further down it gets the help text.
// What should hold: a command GitHub hides (a comment, an attribute) or shows inside a quote does not count.
import { describe, expect, it } from "vitest";
import { actsOn } from "./invocation-acts.js";
import { BOT_LOGIN } from "../unit/triggers/webhook-examples.js";

const _options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("an HTML closer written outside the container its opener is in", () => {
  it.each([
    ["a comment opened in a quote", "> <!--\n-->\n@tackle approve\n"],
    ["a comment opened in a list item", "- <!--\n\n-->\n\n@tackle approve\n"],
    ["a processing instruction opened in a quote", "> <?\n?>\n@tackle approve\n"],
    ["CDATA opened in a quote", "> <![CDATA[\n]]>\n@tackle approve\n"],
    ["an attribute value opened in a quote", '> <div title="\n">\n@tackle approve\n">\n'],
  ])("%s: not a command", (_shape, body) => {
    expect(actsOn(body)).toBe("nothing");
  });
});
