import MarkdownIt from "markdown-it";
import { blankRanges, codeRanges } from "../util/markdown-code.js";

/**
 * What of a comment is its writer's own prose: where a command or mention counts. Two rules, each
 * erring towards "not prose", since a command missed is asked again while a command read from
 * pasted text answers for the writer:
 *
 * - Block structure is decided by a CommonMark parser (markdown-it's block rules, spec-tested, with
 *   GFM tables), not by rules of our own: each hand-made rule (quotes only at a line's start, fences
 *   only 0–3 spaces in, indented code only after a blank line, `trim()` taking U+00A0 for a blank)
 *   was a place where GitHub showed a quote or code and Tackle read a command. Only paragraphs
 *   outside block quotes are prose; code spans in them are blanked.
 * - HTML is read fail-closed, from the raw text outside code blocks: a comment, processing
 *   instruction or CDATA section hides everything to its end (or to the end of the text); a tag
 *   hides itself, attribute values included; and an element GitHub shows as code or a quote (`<pre>`,
 *   `<code>`, `<blockquote>`, …) hides everything after it. Where such an element really ends
 *   depends on escapes, code spans and attribute values that every reading so far got wrong somewhere.
 *   A GFM footnote definition hides everything after it too (it is a container, like a list item).
 *
 * Only the block rules run (no inline parsing), nesting past 20 levels is not parsed (nothing there
 * is prose), the HTML scan is one pass, and line endings are normalised first as the parser does
 * (`\r\n` and a lone `\r` end a line): 64 KB of hostile shapes costs at most about 0.3 s, and this runs
 * on every comment anyone posts.
 */
// The commonmark preset parses at most 20 levels deep.
const blocks = new MarkdownIt("commonmark", { html: true });
blocks.block.ruler.enable(["table"]);
blocks.core.ruler.disable(["inline", "text_join"]);

/** The text as the parser reads it: every line ending a `\n`, NUL as U+FFFD. */
export function normalizeLineEnds(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
}

/**
 * `text` (normalised) with everything but its writer's prose blanked, every offset and line break
 * kept: code (fenced, indented, spans), quotes (lazy lines included), tables, HTML and what it hides.
 */
export function maskNonProse(text: string): string {
  const lines = text.split("\n");
  const prose = new Array<boolean>(lines.length).fill(false);
  const code = new Array<boolean>(lines.length).fill(false);
  let quoteDepth = 0;
  for (const token of blocks.parse(text, {})) {
    if (token.type === "blockquote_open") quoteDepth += 1;
    else if (token.type === "blockquote_close") quoteDepth -= 1;
    else if (token.map !== null && (token.type === "code_block" || token.type === "fence")) code.fill(true, token.map[0], token.map[1]);
    else if (token.map !== null && token.type === "paragraph_open" && quoteDepth === 0) prose.fill(true, token.map[0], token.map[1]);
  }
  // HTML is looked for everywhere but in code blocks (where the parser is sure it is text).
  const hiddenFrom = hiddenByHtml(lines.map((line, i) => (code[i] === true ? blank(line) : line)).join("\n"));
  const spansBlanked = blankRanges(blankRanges(text, codeRanges(text)), hiddenFrom).split("\n");
  return spansBlanked.map((line, i) => (prose[i] === true ? line : blank(line))).join("\n");
}

function blank(part: string): string {
  return part.replace(/[^\n]/g, " ");
}

/** Elements GitHub shows as code or as a quote, and those whose content a browser does not render as text. */
const HIDES_THE_REST = /^<(?:pre|code|samp|kbd|tt|blockquote|q|textarea|script|style|xmp|plaintext|template|noscript|iframe|noembed|noframes)\b/i;
const TAG_NAME = /^<\/?[A-Za-z][A-Za-z0-9-]*/;
const FOOTNOTE = /^ {0,3}\[\^[^\]\n]+\]:/m;

/**
 * Ranges ([start, end)) HTML hides, read fail-closed in one pass (see the module's comment); a
 * footnote definition hides the rest as well.
 */
function hiddenByHtml(text: string): Array<{ start: number; end: number }> {
  const ranges: Array<{ start: number; end: number }> = [];
  const footnote = FOOTNOTE.exec(text);
  const limit = footnote === null ? text.length : footnote.index;
  const hideRest = (from: number) => {
    ranges.push({ start: from, end: text.length });
    return ranges;
  };
  for (let at = text.indexOf("<"); at !== -1 && at < limit; at = text.indexOf("<", at + 1)) {
    const rest = text.slice(at, at + 16);
    const closer = rest.startsWith("<!--") ? "-->" : rest.startsWith("<?") ? "?>" : rest.startsWith("<![CDATA[") ? "]]>" : undefined;
    if (closer !== undefined) {
      const end = text.indexOf(closer, at + 2);
      if (end === -1 || end >= limit) return hideRest(at);
      ranges.push({ start: at, end: end + closer.length });
      at = end;
      continue;
    }
    if (HIDES_THE_REST.test(rest)) return hideRest(at);
    const name = TAG_NAME.exec(rest);
    if (name === null) continue;
    // A tag: to its `>` outside quoted attribute values; one that never ends hides the rest.
    let quote = "";
    let end = at + name[0].length;
    for (; end < text.length; end += 1) {
      const char = text[end];
      if (quote !== "") {
        if (char === quote) quote = "";
      } else if (char === '"' || char === "'") quote = char;
      else if (char === ">") break;
    }
    if (end >= text.length) return hideRest(at);
    ranges.push({ start: at, end: end + 1 });
    at = end;
  }
  if (footnote !== null) return hideRest(footnote.index);
  return ranges;
}
