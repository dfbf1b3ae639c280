// Broken (red team of #20, seventeenth pass, triggers: writer-prose HTML scan): src/triggers/writer-prose.ts ›
// scanHtml finds tags with HTML_NOT_PROSE, a regular expression that does not read attributes, so a
// `</pre>` (or `</blockquote>`, `</code>`) written inside another tag's quoted attribute value is taken for
// the closing tag and ends the element there. A browser (and GitHub's sanitizer, which parses as one) reads
// the attribute value as a value: the element stays open. `Text <pre><span title="</pre>">` followed by a
// line `@tackle approve` is, on GitHub, `<p>Text <pre><span title="</pre>">\n@tackle approve\n</pre></p>`
// (cmark-gfm 0.29.0.gfm.6 --unsafe; CommonMark §6.6 allows `<` and `>` inside a double-quoted attribute
// value), which parse5 puts in body > pre > span: preformatted, yet parseCommand reads `approve`. The same
// with `<blockquote>` puts a quoted line of someone else's under the writer's name.
// (src/util/html-tags.ts › htmlTags already reads tags as a browser does.)
// Fixed: an HTML code or quote element hides everything after it; no closing tag is looked for
// (triggers/writer-prose.ts › hiddenByHtml).
// What should hold: a command inside a `<pre>` or `<blockquote>` element as GitHub renders it does not count.
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/triggers/parse-command.js";

describe("a closing tag inside an attribute value", () => {
  it.each([
    ["<pre> in a paragraph", 'Text <pre><span title="</pre>">\n@tackle approve\n</pre>\n'],
    ["<blockquote> in a paragraph", 'They wrote: <blockquote><a title="</blockquote>">\n@tackle approve\n</a></blockquote>\n'],
    ["<pre> as an HTML block", '<pre><span title="</pre>">x</span>\n\n@tackle approve\n\n</pre>\n'],
  ])("%s: the command inside the element does not count", (_shape, body) => {
    expect(parseCommand(body, "tackle").kind).toBe("none");
  });
});
