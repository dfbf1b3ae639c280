// WebFetch's markdown (turndown) ran regular expressions that backtrack over the whole of a run of
// whitespace or of a code span, each within the 256 K characters and 256 levels it was allowed:
// - its last step trimmed the markdown's end with `/[\t\r\n\s]+$/`, which from each position of a run
//   of whitespace that is not at the end scans the run and fails: `<br>` × 65 000 in a paragraph (each
//   one `  \n`), a run of no-break spaces, or of spaces in a `<pre>`, held the event loop for minutes
//   (65 000 `<br>`: 179 s on a loaded machine);
// - the code span's spacing test `/^ .*?[^ ].* $/` on a span starting with a line break (a space once
//   converted) and not ending with a space;
// - the edges of an inline element's text, `(\s*?)([ \t\r\n]*)$`, in a `<pre>` whose span ends in spaces
//   and one no-break space.
// Fixed: the conversion (net/markdown/, turndown's, ported) computes the same answers in one pass.
// No clock: on the code before, these pages take minutes together, past the test's timeout.
import { describe, expect, it } from "vitest";
import { htmlToMarkdown, MARKDOWN_MAX_CHARS, PLAIN_TEXT_NOTE } from "../../src/net/html-to-markdown.js";

const RUN = MARKDOWN_MAX_CHARS - 64;

describe("WebFetch's markdown of long runs of whitespace and long code spans", () => {
  it("is made in one pass, and is what it was", () => {
    const pages: [string, string][] = [
      [`<p>${"<br>".repeat(RUN / 4)}x</p>`, "x"],
      [`<p>a${"\u00a0".repeat(RUN)}x</p>`, `a${"\u00a0".repeat(RUN)}x`],
      [`<pre>a${" ".repeat(RUN)}x</pre>`, `a${" ".repeat(RUN)}x`],
      [`<code><br>${"a".repeat(RUN)}</code>`, `\`   ${"a".repeat(RUN)}\``],
      [`<pre><span>x${" ".repeat(RUN)}\u00a0</span></pre>`, "x"],
    ];
    for (const [html, markdown] of pages) {
      expect(html.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
      const converted = htmlToMarkdown(html);
      expect(converted).not.toContain(PLAIN_TEXT_NOTE);
      expect(converted === markdown, html.slice(0, 40)).toBe(true);
    }
  });
});
