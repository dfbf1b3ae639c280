import { collapseWhitespace } from "./markdown/collapse-whitespace.js";
import { indexText } from "./markdown/index-text.js";
import { parseHtml } from "./markdown/parse-html.js";
import { renderMarkdown } from "./markdown/render-markdown.js";

/**
 * Past these, a page is shown as plain text made in one linear pass instead. The conversion runs on
 * the event loop: parsing costs a few seconds a megabyte, the parser's work per tag grows with the
 * depth of the elements open around it, and its work per attribute with the attributes before it in
 * the same tag. The depth is the parser's own, counted as it builds the tree (see parseHtml): no
 * count of tags in the text matches it. So is a third bound, with no constant of its own: the parser
 * may create at most as many elements and attributes, together, as the characters it reads, since
 * it reopens formatting elements left open, attributes and all, in every later block.
 */
export const MARKDOWN_MAX_CHARS = 256 * 1024;
export const MARKDOWN_MAX_DEPTH = 256;
export const MARKDOWN_MAX_ATTRIBUTES = 256;

export const PLAIN_TEXT_NOTE = "[This page is too large or too deeply nested to convert to markdown: shown as plain text.]";

export interface ConvertedHtml {
  text: string;
  /** Characters the conversion left out to keep its work bounded (0: all of the page is in text). */
  omittedChars: number;
}

/**
 * HTML as markdown (as turndown made it, without scripts, styles, frames and inline graphics), or
 * plain text for a page past the limits above. Only the first maxChars characters are wanted: the
 * conversion stops adding to an element past twice that, so its work stays within the page's depth
 * times that bound however the page multiplies its text (quotes and lists prefix every line).
 */
export function convertHtml(html: string, maxChars: number): ConvertedHtml {
  const root = html.length > MARKDOWN_MAX_CHARS ? undefined : parseHtml(html, { maxDepth: MARKDOWN_MAX_DEPTH, maxAttributes: MARKDOWN_MAX_ATTRIBUTES });
  if (root !== undefined) {
    collapseWhitespace(root);
    const index = indexText(root, MARKDOWN_MAX_DEPTH);
    if (index !== undefined) return renderMarkdown(root, index, 2 * maxChars);
  }
  return { text: `${PLAIN_TEXT_NOTE}\n\n${htmlToPlainText(html)}`, omittedChars: 0 };
}

/** convertHtml's text alone, with room for twice MARKDOWN_MAX_CHARS characters of markdown. */
export function htmlToMarkdown(html: string): string {
  return convertHtml(html, MARKDOWN_MAX_CHARS).text;
}

const HIDDEN_BLOCKS = /<(script|style|noscript|template|svg|iframe|object)\b[\s\S]*?(?:<\/\1\s*>|$)/gi;
const COMMENTS = /<!--[\s\S]*?(?:-->|$)/g;
/**
 * Every pattern that runs to a `>` also ends at the end of the page: `[^>]*>` alone fails at a `<`
 * never closed, after scanning to the end, and again at the next `<`: 5 MB of `<a<a<a…` took hours
 * on the event loop, each `<` scanning the rest of the page. An unclosed tag at the end is dropped,
 * as a browser drops it.
 */
const BLOCK_TAGS =
  /<\/?(?:address|article|aside|blockquote|br|dd|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tr|ul)\b[^>]*(?:>|$)/gi;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Text of the page in one linear pass: hidden blocks dropped, block elements as line breaks, entities decoded. */
function htmlToPlainText(html: string): string {
  return html
    .replace(COMMENTS, "")
    .replace(HIDDEN_BLOCKS, "")
    .replace(BLOCK_TAGS, "\n")
    .replace(/<[^>]*(?:>|$)/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, code: string) => {
      if (code.startsWith("#")) {
        const point = code[1] === "x" || code[1] === "X" ? Number.parseInt(code.slice(2), 16) : Number.parseInt(code.slice(1), 10);
        return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : "";
      }
      return ENTITIES[code.toLowerCase()] ?? entity;
    })
    .replace(/[ \t\f\v\r]+/g, " ")
    .replace(/ *\n[\s]*/g, (breaks) => (breaks.split("\n").length > 2 ? "\n\n" : "\n"))
    .trim();
}
