// Broken (red team of #20, eighteenth pass, triggers: writer-prose HTML scan): src/triggers/writer-prose.ts ›
// hiddenByHtml takes every `<` followed by a tag name for a tag, and inside it toggles a quoted attribute value
// at every `'` or `"` it meets, then jumps past the tag's `>`: a `<pre`, `<code>` or `<blockquote` inside what
// it took for a quoted value is never tested against HIDES_THE_REST. CommonMark (§6.6) only makes a raw HTML
// tag of a well-formed one: `<a'>`, `<b "…">` or `<y 'a' …>` (a quote where an attribute name must be) is not
// one, so cmark-gfm writes it as text (`&lt;a'&gt;`) and the `<pre>`/`<blockquote>` after it is a real element.
// Rendered by cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes -e autolink -e tagfilter -e tasklist
// -e strikethrough`), `Look <a'> <pre>'>\n@tackle approve\n</pre>` is `<p>Look &lt;a'&gt; <pre>'&gt;\n@tackle
// approve\n</pre></p>`, which parse5 (a browser's tree builder) puts in body > pre; the `<blockquote>` body puts
// the command in body > blockquote, the `<code>` one in p > code. parseCommand reads `approve` in each, and
// parseTrigger makes an approve command of the comment.
// Fixed: a command counts only where it starts the comment (parse-command.ts › startsText): nothing
// before it can open a quote, code or hidden HTML around it; further down it gets the help text.
// What should hold: a command GitHub shows inside a `<pre>`, `<code>` or `<blockquote>` element does not count
// (the fail-closed HTML reading must not skip a code or quote element that a guessed tag swallowed).
import { describe, expect, it } from "vitest";
import { actsOn } from "./invocation-acts.js";
import { BOT_LOGIN } from "../unit/triggers/webhook-examples.js";

const _options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("a quote inside text taken for a tag", () => {
  it.each([
    // <p>Look &lt;a'&gt; <pre>'&gt;\n@tackle approve\n</pre></p>  → body > pre
    ["<pre> after `<a'>`", "Look <a'> <pre>'>\n@tackle approve\n</pre>\n"],
    // <p>Look &lt;b title=&quot;don't&quot; '&gt; <blockquote>'&gt;\n@tackle approve</p>\n</blockquote>  → body > blockquote
    ["<blockquote> after an apostrophe in a would-be tag", "Look <b title=\"don't\" '> <blockquote>'>\n@tackle approve\n</blockquote>\n"],
    // <p>Say a &lt;b &quot;<blockquote>&quot;&gt;\n@tackle approve</p>  → body > blockquote
    ["<blockquote> inside a would-be quoted attribute", 'Say a <b "<blockquote>">\n@tackle approve\n'],
    // <p>Compare x &lt;y 'a' &quot;<code>&quot;&gt;\n@tackle approve\n</code></p>  → p > code
    ["<code> inside a would-be quoted attribute", "Compare x <y 'a' \"<code>\">\n@tackle approve\n</code>\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(actsOn(body)).toBe("nothing");
  });
});
