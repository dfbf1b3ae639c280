/**
 * Whether some tag of the page may carry more than `limit` attributes. domino's tokenizer compares
 * each new attribute with every one the tag already has (to drop duplicates), so a tag of n
 * attributes costs n² / 2 comparisons: one tag of 20 000 (100 K characters) took 20 s to parse.
 *
 * Every `<` followed by a letter, or by `/` and a letter, is scanned as the start of a tag, with the
 * tokenizer's rules for what ends a name, a value and the tag: the tokenizer's own tags are among
 * them (and counted as it counts), whatever came before, so a `<` in a script, a comment or a
 * quoted value cannot hide one; the others only count more. Each scan stops past `limit`, and every
 * step jumps to the next character of a kind, so the whole is linear in the page times `limit`.
 */
export function hasManyAttributes(html: string, limit: number): boolean {
  const jumps = jumpTables(html);
  for (let start = html.indexOf("<"); start !== -1; start = html.indexOf("<", start + 1)) {
    const nameAt = html[start + 1] === "/" ? start + 2 : start + 1;
    if (isAsciiLetter(html.charCodeAt(nameAt)) && attributesOfTagAt(html, nameAt, limit, jumps) > limit) return true;
  }
  return false;
}

/** Attributes of the tag whose name starts at `at`, counted up to limit + 1. */
function attributesOfTagAt(html: string, at: number, limit: number, jumps: JumpTables): number {
  const end = html.length;
  let count = 0;
  let i = jumps.tagNameEnd[at] as number;
  while (count <= limit) {
    i = jumps.pastSeparators[i] as number; // before attribute name: white space and `/` (but `/>`) skipped
    if (i >= end || html[i] === ">") break;
    count += 1;
    i = jumps.attributeNameEnd[i + 1] as number; // the name's first character may be `=`
    i = jumps.pastWhitespace[i] as number;
    if (html[i] !== "=") continue;
    i = jumps.pastWhitespace[i + 1] as number;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = (quote === '"' ? jumps.doubleQuote : jumps.singleQuote)[i + 1] as number;
      i = Math.min(close + 1, end);
    } else {
      i = jumps.unquotedValueEnd[i] as number;
    }
  }
  return count;
}

interface JumpTables {
  /** For each position, the next one (or the end) holding a character of the kind named. */
  tagNameEnd: Int32Array;
  attributeNameEnd: Int32Array;
  unquotedValueEnd: Int32Array;
  doubleQuote: Int32Array;
  singleQuote: Int32Array;
  /** …or not holding one. */
  pastWhitespace: Int32Array;
  pastSeparators: Int32Array;
}

/** The tokenizer's white space: tab, line feed, form feed, space, and carriage return (read as a line feed). */
const isWhitespace = (char: string) => char === " " || char === "\n" || char === "\t" || char === "\f" || char === "\r";

function jumpTables(html: string): JumpTables {
  const size = html.length + 1;
  const tables: JumpTables = {
    tagNameEnd: new Int32Array(size),
    attributeNameEnd: new Int32Array(size),
    unquotedValueEnd: new Int32Array(size),
    doubleQuote: new Int32Array(size),
    singleQuote: new Int32Array(size),
    pastWhitespace: new Int32Array(size),
    pastSeparators: new Int32Array(size),
  };
  for (const table of Object.values(tables)) table[size - 1] = size - 1;
  for (let i = html.length - 1; i >= 0; i -= 1) {
    const char = html[i] as string;
    const space = isWhitespace(char);
    const next = (table: Int32Array, here: boolean) => {
      table[i] = here ? i : (table[i + 1] as number);
    };
    next(tables.tagNameEnd, space || char === "/" || char === ">");
    next(tables.attributeNameEnd, space || char === "/" || char === ">" || char === "=");
    next(tables.unquotedValueEnd, space || char === ">");
    next(tables.doubleQuote, char === '"');
    next(tables.singleQuote, char === "'");
    next(tables.pastWhitespace, !space);
    next(tables.pastSeparators, !space && char !== "/");
  }
  return tables;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
