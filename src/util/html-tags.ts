/** One HTML start or end tag found in Markdown prose. */
export interface HtmlTag {
  /** Offset of `<`. */
  start: number;
  /** Offset just after `>`. */
  end: number;
  /** Lower-case tag name. */
  name: string;
  /** `</name …>`. */
  closing: boolean;
  /** `<name … />`. */
  selfClosing: boolean;
  /** Lower-case names, each with its value as written (quotes removed); `undefined` for a bare attribute. */
  attributes: Array<{ name: string; value: string | undefined }>;
}

const WHITESPACE = /[ \t\n\r\f]/;

/**
 * The tags of a text, read the way a browser's tokenizer reads them (so an attribute value may hold
 * `>` or a line break), in one pass from left to right. Something that starts like a tag but does not
 * end as one (no `>`, an unclosed quote, a `<` where an attribute should be) is text, and the search
 * goes on from the character after its `<`. Autolinks (`<https://…>`, `<a@b.c>`) are not tags.
 */
export function* htmlTags(text: string): Generator<HtmlTag> {
  // Where the last of each terminator is: a tag that would need one further on fails at once,
  // which keeps a text full of unfinished tags linear.
  const last = { ">": text.lastIndexOf(">"), '"': text.lastIndexOf('"'), "'": text.lastIndexOf("'") };
  let from = 0;
  for (let open = text.indexOf("<", from); open !== -1; open = text.indexOf("<", from)) {
    const tag = open < last[">"] ? readTag(text, open, last) : undefined;
    if (tag === undefined) {
      from = open + 1;
      continue;
    }
    yield tag;
    from = tag.end;
  }
}

function readTag(text: string, start: number, last: Record<">" | '"' | "'", number>): HtmlTag | undefined {
  const closing = text[start + 1] === "/";
  const nameStart = start + (closing ? 2 : 1);
  const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(nameStart, nameStart + 64))?.[0];
  if (name === undefined) return undefined;
  let at = nameStart + name.length;
  const after = text[at];
  if (after === undefined || !(WHITESPACE.test(after) || after === "/" || after === ">")) return undefined;

  const attributes: HtmlTag["attributes"] = [];
  while (at < text.length) {
    const char = text[at] as string;
    if (WHITESPACE.test(char)) {
      at += 1;
    } else if (char === ">") {
      return { start, end: at + 1, name: name.toLowerCase(), closing, selfClosing: false, attributes };
    } else if (char === "/" && text[at + 1] === ">") {
      return { start, end: at + 2, name: name.toLowerCase(), closing, selfClosing: true, attributes };
    } else if (char === "/") {
      at += 1;
    } else if (char === "<") {
      return undefined;
    } else {
      const attribute = readAttribute(text, at, last);
      if (attribute === undefined) return undefined;
      attributes.push({ name: attribute.name, value: attribute.value });
      at = attribute.end;
    }
  }
  return undefined;
}

function readAttribute(
  text: string,
  start: number,
  last: Record<">" | '"' | "'", number>,
): { name: string; value: string | undefined; end: number } | undefined {
  let at = start + 1; // the first character may be anything, even `=`
  while (at < text.length && !/[ \t\n\r\f/>=<]/.test(text[at] as string)) at += 1;
  const name = text.slice(start, at).toLowerCase();
  let next = at;
  while (next < text.length && WHITESPACE.test(text[next] as string)) next += 1;
  if (text[next] !== "=") return { name, value: undefined, end: at };
  next += 1;
  while (next < text.length && WHITESPACE.test(text[next] as string)) next += 1;
  const quote = text[next];
  if (quote === '"' || quote === "'") {
    if (next >= last[quote]) return undefined;
    const close = text.indexOf(quote, next + 1);
    return { name, value: text.slice(next + 1, close), end: close + 1 };
  }
  let end = next;
  while (end < text.length && !/[ \t\n\r\f>]/.test(text[end] as string)) end += 1;
  return { name, value: text.slice(next, end), end };
}
