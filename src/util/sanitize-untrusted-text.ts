import { mapProse } from "./markdown-code.js";

export interface SanitizeOptions {
  /**
   * Longest text kept, in UTF-16 units; the rest is cut and the cut is said.
   * @defaultValue 65_536 (GitHub's own limit for an issue or comment body)
   */
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 65_536;

/**
 * Zero-width characters, bidi controls, Unicode tag characters (ASCII smuggling), invisible
 * operators, soft hyphens and C0 controls other than tab and line breaks.
 */
export const INVISIBLE_CHARACTERS =
  /[\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u00AD\u180E\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|\uDB40[\uDC00-\uDC7F\uDD00-\uDDEF]/g;

const VOID_ELEMENTS = new Set([
  "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
]);

/** Elements whose content a reader never sees. */
const INVISIBLE_ELEMENTS = new Set(["script", "style", "template", "noscript"]);

/**
 * Removes what a person reading the issue on GitHub would not see but a model would: HTML
 * comments, invisible characters, hidden elements, alt and title attributes, and Markdown image alt
 * text and link titles, then caps the length. Visible text (including `<details>`) stays as written.
 * Invisible characters and hidden HTML go everywhere, since a fence inside a hidden block is hidden
 * too; attributes and titles only outside code, where they are shown literally.
 */
export function sanitizeUntrustedText(text: string, options: SanitizeOptions = {}): string {
  let result = text.replace(INVISIBLE_CHARACTERS, "");
  result = result.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  result = removeHiddenElements(result);
  result = mapProse(result, (prose) => stripMarkdownTitles(stripHtmlAttributes(prose)));
  return cap(result, options.maxLength ?? DEFAULT_MAX_LENGTH);
}

function removeHiddenElements(text: string): string {
  const openTag = /<([a-zA-Z][\w-]*)(\s[^<>]*)?>/g;
  const kept: string[] = [];
  let position = 0;
  for (let match = openTag.exec(text); match !== null; match = openTag.exec(text)) {
    const tag = (match[1] ?? "").toLowerCase();
    const attributes = match[2] ?? "";
    if (!INVISIBLE_ELEMENTS.has(tag) && !isHidden(attributes)) continue;
    const afterOpen = match.index + match[0].length;
    const selfClosing = attributes.endsWith("/") || VOID_ELEMENTS.has(tag);
    kept.push(text.slice(position, match.index));
    position = selfClosing ? afterOpen : closingTagEnd(text, tag, afterOpen);
    openTag.lastIndex = position;
  }
  kept.push(text.slice(position));
  return kept.join("");
}

function isHidden(attributes: string): boolean {
  if (/(?:^|\s)hidden(?=[\s=/]|$)/i.test(attributes)) return true;
  const style = /(?:^|\s)style\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/i.exec(attributes)?.[1];
  if (style === undefined) return false;
  return /display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0(?:\.0*)?(?:[a-z%]+)?\s*(?:[;"'!]|$)|opacity\s*:\s*0(?:\.0*)?\s*(?:[;"'!]|$)|color\s*:\s*transparent/i.test(
    style,
  );
}

/** End of the tag closing the element opened before `from`; the end of the text when it is never closed. */
function closingTagEnd(text: string, tag: string, from: number): number {
  const tags = new RegExp(`<(/?)${tag}\\b[^<>]*>`, "gi");
  tags.lastIndex = from;
  let depth = 1;
  for (const match of text.matchAll(tags)) {
    if (match.index < from) continue;
    depth += match[1] === "/" ? -1 : match[0].endsWith("/>") ? 0 : 1;
    if (depth === 0) return match.index + match[0].length;
  }
  return text.length;
}

function stripHtmlAttributes(prose: string): string {
  return prose.replace(/<[a-zA-Z][\w-]*\s[^<>]*>/g, (tag) =>
    tag.replace(/\s+(?:alt|title|aria-label|aria-description)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi, ""),
  );
}

function stripMarkdownTitles(prose: string): string {
  return (
    stripImageAltText(prose)
      // Inline link and image titles: [text](url "title").
      .replace(/(\]\(\s*(?:<[^>\n]*>|[^\s()]*))\s+(?:"[^"]*"|'[^']*'|\([^()]*\))\s*\)/g, "$1)")
      // Reference definitions: [id]: url "title".
      .replace(/^( {0,3}\[[^\]\n]+\]:[ \t]*\S+)[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\))[ \t]*$/gm, "$1")
  );
}

/** `![hidden](url)` and `![hidden][ref]` lose their alt text; brackets nest, as in CommonMark. */
function stripImageAltText(prose: string): string {
  const closing = matchingBrackets(prose);
  const parts: string[] = [];
  let position = 0;
  for (let open = prose.indexOf("![", position); open !== -1; open = prose.indexOf("![", position)) {
    const close = closing.get(open + 1);
    const next = close === undefined ? undefined : prose.charAt(close + 1);
    if (close === undefined || (next !== "(" && next !== "[")) {
      parts.push(prose.slice(position, open + 2));
      position = open + 2;
      continue;
    }
    parts.push(prose.slice(position, open + 2));
    position = close;
  }
  parts.push(prose.slice(position));
  return parts.join("");
}

/** Offset of each unescaped `[` to the offset of its matching `]`, in one pass. */
function matchingBrackets(text: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (char === "\\") index++;
    else if (char === "[") open.push(index);
    else if (char === "]") {
      const start = open.pop();
      if (start !== undefined) pairs.set(start, index);
    }
  }
  return pairs;
}

function cap(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = maxLength;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}\n\n[… ${text.length - end} more characters cut]`;
}
