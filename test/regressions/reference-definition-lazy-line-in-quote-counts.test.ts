// Broken (red team of #20, eighteenth pass, triggers: writer-prose block structure): src/triggers/writer-prose.ts ›
// maskNonProse takes block structure from markdown-it, whose `reference` block rule consumes a link reference
// definition (`[1]: https://…`) as a block of its own the moment it sees it. CommonMark (cmark, cmark-gfm,
// commonmark.js) reads the definition as the start of a paragraph, which takes lazy continuation lines like
// any other, and takes the definition out of the paragraph only when it closes. So in a block quote, the line
// after a definition, written without `>`, is a lazy line of the quote on GitHub and a paragraph of its own
// (prose) to markdown-it. Rendered by cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes -e autolink
// -e tagfilter -e tasklist -e strikethrough`): `> [1]: https://example.com/report\n@tackle approve` is
// `<blockquote>\n<p>@tackle approve</p>\n</blockquote>`; a pasted comment that ends in a reference (`> See
// [1].\n>\n> [1]: https://…\n@tackle approve`) shows the command as the quote's last paragraph. parseCommand
// reads `approve` in each.
// Fixed: a command counts only where it starts the comment (parse-command.ts › startsText): nothing
// before it can open a quote, code or hidden HTML around it; further down it gets the help text.
// What should hold: a command in a quote's lazy line does not count (docs/security-model.md: "not in … quotes
// (with their lazy lines, wherever opened)").
import { describe, expect, it } from "vitest";
import { actsOn } from "./invocation-acts.js";
import { BOT_LOGIN } from "../unit/triggers/webhook-examples.js";

const _options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("the lazy line after a reference definition in a quote", () => {
  it.each([
    // <blockquote>\n<p>@tackle approve</p>\n</blockquote>
    ["a quote opened by a definition", "> [1]: https://example.com/report\n@tackle approve\n"],
    // <p>They wrote:</p>\n<blockquote>\n<p>See <a …>1</a>.</p>\n<p>@tackle approve</p>\n</blockquote>
    ["a quoted comment that ends in a definition", "They wrote:\n\n> See [1].\n>\n> [1]: https://example.com/report\n@tackle approve\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(actsOn(body)).toBe("nothing");
  });
});
