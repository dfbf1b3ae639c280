import { topLevelFences, unambiguousCodeRanges } from "./markdown-code.js";

/**
 * The agent's Markdown with what would pass for Tackle's own, or act beyond the page, made text; code
 * is kept as written (`unambiguousCodeRanges`: what GitHub surely renders as code; every other
 * backtick is escaped, so GitHub cannot pair backticks into a span this file did not see). A link or image with its own text (`[re-authorize](https://…)`, `![](…)`) shows
 * its syntax and address instead (`]( ` and `]:` escaped, so no inline link and no reference
 * definition forms; a bare URL, whose text is its address, stays a link); raw HTML and `<…>` autolinks
 * show as text (`<` escaped), as do entities (`&#64;`) and math (`$`); `@name` and `owner/repo#12`
 * get a word joiner after the `@` or `#`, so nobody is pinged and no other repository's issue is
 * cross-referenced, while they read the same; a code block left open is closed, so it cannot swallow
 * what Tackle writes after it. Returns a plain string: `agentProse` (surface-markdown.ts) brands it.
 */
export function neutralizeProse(markdown: string): string {
  const text = markdown.replace(/\r\n?/g, "\n");
  let result = "";
  let position = 0;
  for (const range of unambiguousCodeRanges(text)) {
    result += escapeProse(text.slice(position, range.start), atLineStart(text, position)) + text.slice(range.start, range.end);
    position = range.end;
  }
  result += escapeProse(text.slice(position), atLineStart(text, position));
  const open = topLevelFences(text).find((fence) => !fence.closed);
  return open === undefined ? result : `${result}\n${open.fence}`;
}

const WORD_JOINER = "\u2060";

function atLineStart(text: string, position: number): boolean {
  return position === 0 || text.charAt(position - 1) === "\n";
}

function escapeProse(prose: string, lineStart: boolean): string {
  // Word by word: a run of backslashes never spans a space.
  const escaped = prose
    .split(/(\s+)/)
    .map((word) => breakPings(escapeSyntax(word)))
    .join("");
  // A tilde fence indented one to three spaces is a fence too (only first-column ones are kept as
  // code): escaped, so it cannot open a block that swallows what Tackle writes after it.
  return escaped.replace(/(^|\n)( {0,3})(?=~{3})/g, (match, newline: string, spaces: string, offset: number) =>
    offset === 0 && newline === "" && !lineStart ? match : `${newline}${spaces}\\`,
  );
}

/**
 * Escaped unless already: a backtick (the only unescaped ones left are those of the code spans kept,
 * so GitHub pairs them as this file did), `$`, a `<` that could open a tag or an autolink, an
 * entity's `&`, the `[` of an alert marker (`[!WARNING]`, which would turn the quote Tackle sets the
 * agent's words apart with into a notice box of its own); and `(` and `:` after `]`.
 */
function escapeSyntax(text: string): string {
  let result = "";
  let backslashes = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    const escapable =
      char === "`" ||
      char === "$" ||
      (char === "<" && /[A-Za-z/!?]/.test(text.charAt(index + 1))) ||
      (char === "&" && ENTITY.test(text.slice(index))) ||
      (char === "[" && ALERT.test(text.slice(index))) ||
      ((char === "(" || char === ":") && text.charAt(index - 1) === "]");
    if (escapable && backslashes % 2 === 0) result += "\\";
    result += char;
    backslashes = char === "\\" ? backslashes + 1 : 0;
  }
  return result;
}

/** GitHub's alert marker (`> [!CAUTION]`): a quote opened by it is shown as a coloured notice box, not as a quote. */
const ALERT = /^\[!\w*\]/;

const ENTITY = /^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;

/**
 * A mention or another repository's issue or commit reference (`owner/repo#12`, `owner/repo@a1b2c3d`),
 * as GitHub finds them in a text, broken. GitHub's word boundary before a mention is ASCII's: after a
 * non-ASCII letter (`é@name`, `日本@name`) it still pings, so only an ASCII letter or digit before
 * the `@` (an e-mail's local part) leaves it alone. Not `_`: one that opens emphasis (`_@name_`) is
 * not in the rendered text, which starts with `@name` and pings.
 */
function breakPings(word: string): string {
  return breakReferences(word.replace(/(?<![A-Za-z0-9])@(?=[A-Za-z0-9])/g, `@${WORD_JOINER}`));
}

/**
 * A word joiner after each `#` or `@` that ends a reference: a run of `[A-Za-z0-9_.-]`, a `/`, another
 * run, then the sign, a hex digit after it. Read back from each sign over the run before it (runs
 * end at a sign, so each character is read once): a regular expression read each run to its end from
 * every one of its characters, quadratic on one long word without a reference.
 */
function breakReferences(word: string): string {
  let result = "";
  let position = 0;
  for (let sign = nextSign(word, 0); sign !== -1; sign = nextSign(word, sign + 1)) {
    if (!HEX_DIGIT.test(word.charAt(sign + 1))) continue;
    let repo = sign;
    while (repo > 0 && REFERENCE_CHARACTER.test(word.charAt(repo - 1))) repo--;
    if (repo === sign || word.charAt(repo - 1) !== "/" || !REFERENCE_CHARACTER.test(word.charAt(repo - 2))) continue;
    result += word.slice(position, sign + 1) + WORD_JOINER;
    position = sign + 1;
  }
  return result + word.slice(position);
}

function nextSign(word: string, from: number): number {
  for (let index = from; index < word.length; index++) {
    const char = word.charAt(index);
    if (char === "#" || char === "@") return index;
  }
  return -1;
}

const REFERENCE_CHARACTER = /^[A-Za-z0-9_.-]$/;
const HEX_DIGIT = /^[0-9a-fA-F]$/;
