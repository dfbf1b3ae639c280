import { htmlTags, type HtmlTag } from "./html-tags.js";
import { blankRanges, codeRanges, mapProse } from "./markdown-code.js";

export interface SanitizeOptions {
  /**
   * Longest text kept, in UTF-16 units; the rest is cut and the cut is said.
   * @defaultValue 65_536 (GitHub's own limit for an issue or comment body)
   */
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 65_536;

/**
 * Every line break a model reads as one: `\r\n`, a lone `\r`, `\n`, NEL, U+2028 and U+2029. What
 * Tackle puts on one line, or quotes line by line, for the model splits on all of them.
 */
export const LINE_BREAKS = /\r\n|[\r\n\u0085\u2028\u2029]/g;

/**
 * Every character that renders as nothing: controls (C0 but tab and line breaks, DEL, C1), format
 * characters (zero-width space and joiners, bidi marks, embeddings, overrides and isolates, word
 * joiner and invisible operators, soft hyphen, BOM, Unicode tags used for ASCII smuggling,
 * interlinear annotation), and the other default-ignorable characters (combining grapheme joiner,
 * Hangul fillers, Khmer inherent vowels, Mongolian and other variation selectors). Kept where they
 * show: the prepended concatenation marks among the format characters (Arabic number signs, which
 * draw a sign), one emoji variation selector after an emoji or a keycap base, and a zero-width
 * joiner between two emoji (👨‍👩‍👧).
 */
export const INVISIBLE_CHARACTERS = new RegExp(
  [
    String.raw`(?![\t\n\r])\p{Cc}`,
    String.raw`(?![\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}\u200D])\p{Cf}`,
    String.raw`[\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u2065\u3164\uFE00-\uFE0D\uFFA0\uFFF0-\uFFF8\u{E0000}-\u{E0FFF}]`,
    String.raw`(?<![\p{Extended_Pictographic}#*0-9])[\uFE0E\uFE0F]`,
    String.raw`(?<![\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F])\u200D`,
    String.raw`\u200D(?!\p{Extended_Pictographic})`,
  ].join("|"),
  "gu",
);

/** Named entities that stand for an invisible character (`&shy;`, `&ZeroWidthSpace;`, …). */
const INVISIBLE_ENTITIES =
  /&(?:shy|ZeroWidthSpace|NegativeVeryThinSpace|NegativeThinSpace|NegativeMediumSpace|NegativeThickSpace|zwnj|zwj|lrm|rlm|NoBreak|ApplyFunction|af|InvisibleTimes|it|InvisibleComma|ic);/g;

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);

/** Elements whose content a reader never sees (GitHub's sanitizer drops them with their content). */
const INVISIBLE_ELEMENTS = new Set(["script", "style", "template", "noscript", "iframe", "noembed", "noframes", "object", "svg", "math", "xmp", "plaintext"]);

/** The only attribute values kept: where a link or an image points (a reader can follow or see it). */
const SHOWN_ATTRIBUTES = new Set(["href", "src"]);

/**
 * The rule: what a person reading the issue on GitHub does not see does not reach the model. So
 * this removes invisible characters (also written as entities), HTML comments, processing
 * instructions and declarations, hidden elements with their content, every attribute value but a
 * link's or an image's address, Markdown image alt text and link titles, and link or footnote
 * definitions nothing refers to (GitHub renders none of them); then it caps the length. Visible text
 * (including `<details>`) stays as written. Invisible characters and hidden HTML go everywhere,
 * since a fence inside a hidden block is hidden too; the rest only outside code, where GitHub shows
 * markup literally.
 */
export function sanitizeUntrustedText(text: string, options: SanitizeOptions = {}): string {
  let result = text.replace(INVISIBLE_CHARACTERS, "");
  result = result.replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  result = removeHiddenElements(result);
  const referenced = referencedLabels(result);
  result = mapProse(result, (prose) =>
    decodeEntities(stripMarkdownTitles(removeUnusedDefinitions(stripHtmlAttributes(removeMarkupDeclarations(prose)), referenced))),
  );
  return cap(result, options.maxLength ?? DEFAULT_MAX_LENGTH);
}

function removeHiddenElements(text: string): string {
  const kept: string[] = [];
  let position = 0;
  for (const tag of htmlTags(text)) {
    if (tag.start < position || tag.closing || (!INVISIBLE_ELEMENTS.has(tag.name) && !isHidden(tag))) continue;
    const selfClosing = tag.selfClosing || VOID_ELEMENTS.has(tag.name);
    kept.push(text.slice(position, tag.start));
    position = selfClosing ? tag.end : closingTagEnd(text, tag.name, tag.end);
  }
  kept.push(text.slice(position));
  return kept.join("");
}

function isHidden(tag: HtmlTag): boolean {
  if (tag.attributes.some((attribute) => attribute.name === "hidden")) return true;
  const style = tag.attributes.find((attribute) => attribute.name === "style")?.value;
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

/** `<?…?>`, `<!DOCTYPE …>` and `<![CDATA[…]]>`: raw HTML that GitHub does not render. */
function removeMarkupDeclarations(prose: string): string {
  return prose.replace(/<\?[\s\S]*?(?:\?>|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<![A-Za-z][^>]*(?:>|$)/g, "");
}

/** Every tag keeps its name and only `href` and `src`; `alt`, `title`, `data-*`, `aria-*`, `style`, … go. */
function stripHtmlAttributes(prose: string): string {
  let result = "";
  let position = 0;
  for (const tag of htmlTags(prose)) {
    const kept = tag.closing ? [] : tag.attributes.filter((attribute) => SHOWN_ATTRIBUTES.has(attribute.name));
    const attributes = kept.map(({ name, value }) => (value === undefined ? ` ${name}` : ` ${name}="${value.replace(/"/g, "&quot;")}"`));
    const rebuilt = `<${tag.closing ? "/" : ""}${tag.name}${attributes.join("")}${tag.selfClosing ? " /" : ""}>`;
    const original = prose.slice(tag.start, tag.end);
    result += prose.slice(position, tag.start) + (sameTag(original, rebuilt) ? original : rebuilt);
    position = tag.end;
  }
  return result + prose.slice(position);
}

/** Keeps a tag as written when nothing was removed from it (`<br/>`, `<DIV>`), so plain Markdown round-trips. */
function sameTag(original: string, rebuilt: string): boolean {
  const squash = (tag: string) => tag.toLowerCase().replace(/\s+/g, "").replace(/'/g, '"');
  return squash(original) === squash(rebuilt);
}

/** `&#…;` entities decoded (the reader sees the character), except those of invisible characters, which go. */
function decodeEntities(prose: string): string {
  return prose
    .replace(INVISIBLE_ENTITIES, "")
    .replace(/&#(?:([0-9]{1,7})|[xX]([0-9a-fA-F]{1,6}));/g, (_, decimal: string | undefined, hex: string | undefined) => {
      const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "";
      return String.fromCodePoint(code);
    })
    .replace(INVISIBLE_CHARACTERS, "");
}

/** Reference labels used somewhere outside code: `[text][label]`, `[label][]`, `[label]`, footnotes `[^label]`. */
function referencedLabels(text: string): Set<string> {
  const prose = blankRanges(text, codeRanges(text));
  const labels = new Set<string>();
  for (const line of prose.split("\n")) {
    const definition = DEFINITION.exec(line);
    const body = definition === null ? line : line.slice(definition[0].length);
    for (const match of body.matchAll(/\[([^[\]\n]+)\]/g)) labels.add(normalizeLabel(match[1] as string));
  }
  return labels;
}

/** A link reference definition `[label]: url …` or a footnote definition `[^label]: text`. */
const DEFINITION = /^ {0,3}\[([^\]\n]+)\]:/;

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * A definition nothing refers to is not rendered at all: `[//]: # (hidden)`, `[^x]: hidden`. A
 * footnote's paragraph runs to the next blank line.
 */
function removeUnusedDefinitions(prose: string, referenced: ReadonlySet<string>): string {
  const kept: string[] = [];
  let skippingFootnote = false;
  for (const line of prose.split("\n")) {
    if (skippingFootnote && line.trim() !== "") continue;
    skippingFootnote = false;
    const label = DEFINITION.exec(line)?.[1];
    if (label !== undefined && !referenced.has(normalizeLabel(label))) {
      skippingFootnote = label.startsWith("^");
      continue;
    }
    kept.push(line);
  }
  return kept.join("\n");
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
