// Broken (red team of #20, seventeenth pass, triggers: writer-prose comments): src/triggers/writer-prose.ts ›
// maskNonProse blanks only `<!-- … -->` comments, but CommonMark's raw inline HTML (§6.6) also passes a
// processing instruction `<? … ?>` and a CDATA section `<![CDATA[ … ]]>` through, across lines, and an
// HTML parser outside SVG/MathML reads both as (bogus) comments: GitHub shows nothing of them. Rendered by
// cmark-gfm 0.29.0.gfm.6 --unsafe, `x <?php\n@tackle approve\n?>` is `<p>x <?php\n@tackle approve\n?></p>`,
// which parse5 (a browser's tokenizer) turns into a comment node holding the command; parseCommand reads
// `approve`. Partial, same file: text GitHub never shows at all, though not a comment: a command inside a
// tag's quoted attribute value (`x <a title='\n@tackle approve\n'>`: the value spans lines), and a
// footnote definition nothing refers to (cmark-gfm drops it and its lazy lines: `[^1]: > x\n@tackle approve`
// renders as nothing).
// Fixed: processing instructions and CDATA hide to their end as comments do; a tag hides itself, attribute
// values included; a footnote definition hides the rest (triggers/writer-prose.ts › hiddenByHtml).
// What should hold: a command in text GitHub hides (a comment, however written, or markup) does not count.
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/triggers/parse-command.js";

describe("a command GitHub hides", () => {
  it.each([
    ["inside a processing instruction (a comment to the browser)", "Thanks! <?php\n@tackle approve\n?>\n"],
    ["inside a CDATA section (a comment to the browser)", "Thanks! <![CDATA[\n@tackle approve\n]]>\n"],
    ["inside a quoted attribute value (partial)", "Thanks! <a title='\n@tackle approve\n'>\n"],
    ["in a footnote definition nothing refers to (partial)", "Thanks!\n\n[^1]: > x\n@tackle approve\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(parseCommand(body, "tackle").kind).toBe("none");
  });
});
