// WebFetch parsed every page under 256 K characters with domino, whose tokenizer compares each new
// attribute of a tag with all the attributes the tag already has (to drop duplicates): one tag of
// n attributes costs n² / 2 comparisons, on the event loop. 20 000 one-character attributes in
// 40 K characters held it for 22 s on a loaded machine; the page below, one tag of 105 000
// attributes, for many minutes: every job, webhook and queue lock renewal of the process with it.
//
// Fixed: before parsing, a linear scan counts the attributes of every tag as the tokenizer splits
// them (net/markdown/has-many-attributes.ts); a page with a tag of more than 256 is shown as plain
// text. No clock: on the code before, this page takes minutes, past the test's timeout.
import { describe, expect, it } from "vitest";
import { htmlToMarkdown, MARKDOWN_MAX_ATTRIBUTES, MARKDOWN_MAX_CHARS, PLAIN_TEXT_NOTE } from "../../src/net/html-to-markdown.js";

/** Distinct names, as short as they come: every character from U+00A1 to U+D7FF, then pairs of CJK characters. */
function names(room: number): string {
  let attributes = "";
  for (let code = 0xa1; code <= 0xd7ff && attributes.length + 2 <= room; code += 1) attributes += ` ${String.fromCharCode(code)}`;
  for (let pair = 0; attributes.length + 3 <= room; pair += 1)
    attributes += ` ${String.fromCharCode(0x4e00 + (pair % 1_000), 0x5000 + Math.floor(pair / 1_000))}`;
  return attributes;
}

describe("WebFetch on a tag of many attributes", () => {
  it("shows the page as plain text, read in one pass, instead of parsing the tag", () => {
    const attributes = names(MARKDOWN_MAX_CHARS - 64);
    const html = `<p${attributes}>text</p>`;
    expect(html.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(htmlToMarkdown(html)).toBe(`${PLAIN_TEXT_NOTE}\n\ntext`);
  });

  it("still converts a page whose tags have up to the limit", () => {
    const tag = `<a href="/x" ${Array.from({ length: MARKDOWN_MAX_ATTRIBUTES - 1 }, (_, n) => `data-${n}`).join(" ")}>link</a>`;
    expect(htmlToMarkdown(`<p>${tag}</p>`)).toBe("[link](/x)");
  });
});
