import MarkdownIt from "markdown-it";
import { blankRanges, codeRanges } from "../util/markdown-code.js";

/**
 * What of a comment is its writer's own prose: where a command or mention counts. Block structure is
 * decided by a CommonMark parser (markdown-it, which passes the spec's tests), not by rules of our
 * own: each hand-made rule (quotes only at a line's start, fences only 0–3 spaces in, indented code
 * only after a blank line, `trim()` taking U+00A0 for a blank) was a place where GitHub showed a
 * quote or code and Tackle read a command. Only paragraphs outside block quotes and outside HTML
 * code and quote elements are prose; code spans and HTML comments in them are blanked too.
 *
 * Only the block rules run (no inline parsing: 64 KB of hostile shapes costs at most about 0.2 s,
 * and this runs on every comment anyone posts), nesting past 20 levels is not parsed (nothing there
 * is prose), and line endings are normalised first as the parser does (`\r\n` and a lone `\r` end a line).
 */
// The commonmark preset parses at most 20 levels deep.
const blocks = new MarkdownIt("commonmark", { html: true });
blocks.core.ruler.disable(["inline", "text_join"]);

/** The text as the parser reads it: every line ending a `\n`, NUL as U+FFFD. */
export function normalizeLineEnds(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
}

/**
 * `text` (normalised) with everything but its writer's prose blanked, every offset and line break
 * kept: code (fenced, indented, spans, HTML code elements), quotes (Markdown and HTML, lazy lines
 * included), HTML blocks and comments.
 */
export function maskNonProse(text: string): string {
  const spansBlanked = blankRanges(text, codeRanges(text)).replace(/<!--[\s\S]*?(?:-->|$)/g, blank);
  const lines = spansBlanked.split("\n");
  const out = lines.map(blank);
  let quoteDepth = 0;
  let htmlDepth = 0;
  for (const token of blocks.parse(text, {})) {
    if (token.type === "blockquote_open") quoteDepth += 1;
    else if (token.type === "blockquote_close") quoteDepth -= 1;
    else if (token.type === "html_block") htmlDepth = scanHtml(token.content, htmlDepth, false).depth;
    else if (token.type === "paragraph_open" && token.map !== null && quoteDepth === 0) {
      const [first, end] = token.map;
      const scanned = scanHtml(lines.slice(first, end).join("\n"), htmlDepth, true);
      htmlDepth = scanned.depth;
      scanned.text.split("\n").forEach((line, i) => {
        out[first + i] = line;
      });
    }
  }
  return out.join("\n");
}

function blank(part: string): string {
  return part.replace(/[^\n]/g, " ");
}

/** HTML elements GitHub shows as code or as a quote. */
const HTML_NOT_PROSE = /(\\*)<(\/?)(?:pre|code|samp|kbd|tt|blockquote|q)\b[^>]*>?/gi;

/**
 * Blanks what lies inside HTML code and quote elements (`<pre>`, `<code>`, `<blockquote>`, …), from
 * the opening tag to the tag that closes the outermost one, nested ones counted, starting `depth`
 * deep (an element opened in an earlier block); returns how deep it ends. In a paragraph (`escapes`)
 * a tag after an odd run of backslashes is text, not a tag.
 */
function scanHtml(text: string, depth: number, escapes: boolean): { text: string; depth: number } {
  let out = "";
  let from = 0;
  let openedAt = depth > 0 ? 0 : -1;
  for (const tag of text.matchAll(HTML_NOT_PROSE)) {
    const slashes = tag[1]?.length ?? 0;
    if (escapes && slashes % 2 === 1) continue;
    const at = tag.index + slashes;
    if (tag[2] === "") {
      if (depth === 0) openedAt = at;
      depth += 1;
    } else if (depth > 0) {
      depth -= 1;
      if (depth === 0) {
        const end = tag.index + tag[0].length;
        out += text.slice(from, openedAt) + blank(text.slice(openedAt, end));
        from = end;
        openedAt = -1;
      }
    }
  }
  out += depth > 0 ? text.slice(from, openedAt) + blank(text.slice(openedAt)) : text.slice(from);
  return { text: out, depth };
}
