import TurndownService from "turndown";

/** Elements whose content is code or chrome, not text a reader sees. */
const DROPPED = new Set(["script", "style", "noscript", "iframe", "svg", "template", "object", "embed"]);

/**
 * Past these, turndown is not used: it runs on the event loop, takes about 3 s a megabyte, grows
 * faster than linearly with nesting and overflows the stack past a few thousand levels. Such a page
 * is shown as plain text instead, made in one linear pass.
 */
export const MARKDOWN_MAX_CHARS = 256 * 1024;
export const MARKDOWN_MAX_DEPTH = 256;

export const PLAIN_TEXT_NOTE = "[This page is too large or too deeply nested to convert to markdown: shown as plain text.]";

let service: TurndownService | undefined;

/** HTML as markdown (turndown), without scripts, styles, frames and inline graphics; plain text for a page past the limits above. */
export function htmlToMarkdown(html: string): string {
  if (html.length > MARKDOWN_MAX_CHARS || nestingDepth(html) > MARKDOWN_MAX_DEPTH) return `${PLAIN_TEXT_NOTE}\n\n${htmlToPlainText(html)}`;
  service ??= new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" }).remove((node) =>
    DROPPED.has(node.nodeName.toLowerCase()),
  );
  return service.turndown(html).trim();
}

const HIDDEN_BLOCKS = /<(script|style|noscript|template|svg|iframe|object)\b[\s\S]*?(?:<\/\1\s*>|$)/gi;
const COMMENTS = /<!--[\s\S]*?(?:-->|$)/g;
/**
 * Every pattern that runs to a `>` also ends at the end of the page: `[^>]*>` alone fails at a `<`
 * never closed, after scanning to the end, and again at the next `<`: 5 MB of `<a<a<a…` took hours
 * on the event loop, each `<` scanning the rest of the page. An unclosed tag at the end is dropped,
 * as a browser drops it.
 */
const TAG = /<(\/?)([a-zA-Z][\w:-]*)[^>]*(?:>|$)/g;
/** Elements that never contain others, or whose end tag HTML lets authors leave out: they do not count as nesting. */
const FLAT = new Set(
  "area base br col embed hr img input link meta param source track wbr p li dt dd tr td th tbody thead tfoot option optgroup colgroup caption rb rt rp html head body".split(
    " ",
  ),
);

/** The deepest element nesting of the page, by one pass over its tags. */
function nestingDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const match of html.replace(COMMENTS, "").replace(HIDDEN_BLOCKS, "").matchAll(TAG)) {
    const name = (match[2] as string).toLowerCase();
    if (FLAT.has(name) || match[0].endsWith("/>")) continue;
    depth = match[1] === "/" ? Math.max(0, depth - 1) : depth + 1;
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

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
