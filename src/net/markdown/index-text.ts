import { type DomElement, type DomNode, HTML_NAMESPACE, isElement, isText, MEANINGFUL_WHEN_BLANK, VOID } from "./dom.js";

/** Whitespace at the start and end of an element's text, split as turndown's edgeWhitespace splits it. */
export interface Edges {
  leading: string;
  leadingAscii: string;
  leadingNonAscii: string;
  trailing: string;
  trailingAscii: string;
  trailingNonAscii: string;
}

/**
 * The text of a tree, indexed once so that what turndown asked of each element's `textContent`
 * (whitespace only? its edges? its first and last character? a void element somewhere below?) costs
 * the same at any depth. turndown built the whole `textContent` of every element it met, and ran
 * regular expressions over it: the text of the page once per level of nesting above it.
 */
export interface TextIndex {
  /** Where an element's text starts and ends in the text of all text nodes under the root, in document order. */
  range(element: DomElement): { start: number; end: number };
  textOf(element: DomElement): string;
  isWhitespaceOnly(element: DomElement): boolean;
  edges(element: DomElement): Edges;
  firstChar(element: DomElement): string;
  lastChar(element: DomElement): string;
  /** What `element.getElementsByTagName(name).length > 0` answered for one of turndown's void names. */
  hasVoid(element: DomElement): boolean;
  hasMeaningfulWhenBlank(element: DomElement): boolean;
}

const VOID_BIT = 1;
const MEANINGFUL_BIT = 2;

interface Facts {
  start: number;
  end: number;
  /** Descendants as getElementsByTagName matches them from an HTML element (HTML ones by lower-case name). */
  fromHtml: number;
  /** …and from any other element (by the exact, upper-case, name). */
  fromOther: number;
}

/** One walk over the tree, no recursion; undefined when a node is inside more than maxDepth elements below the root. */
export function indexText(root: DomElement, maxDepth: number): TextIndex | undefined {
  const pieces: string[] = [];
  const facts = new Map<DomNode, Facts>();
  const open: Facts[] = [{ start: 0, end: 0, fromHtml: 0, fromOther: 0 }];
  const openNodes: DomNode[] = [root];
  let offset = 0;
  let node = root.firstChild;
  for (;;) {
    if (node !== null) {
      if (open.length - 1 > maxDepth) return undefined;
      if (isText(node)) {
        pieces.push(node.data);
        offset += node.data.length;
      } else if (isElement(node) && node.firstChild !== null) {
        open.push({ start: offset, end: offset, fromHtml: 0, fromOther: 0 });
        openNodes.push(node);
        node = node.firstChild;
        continue;
      } else if (isElement(node)) {
        facts.set(node, { start: offset, end: offset, fromHtml: 0, fromOther: 0 });
        addTo(open.at(-1) as Facts, node);
      }
      node = node.nextSibling;
      continue;
    }
    const done = open.pop() as Facts;
    const element = openNodes.pop() as DomElement;
    done.end = offset;
    facts.set(element, done);
    const parent = open.at(-1);
    if (parent === undefined) break;
    parent.fromHtml |= done.fromHtml;
    parent.fromOther |= done.fromOther;
    addTo(parent, element);
    node = element.nextSibling;
  }
  return createIndex(pieces.join(""), facts);
}

const VOID_LOWER = new Set([...VOID].map((name) => name.toLowerCase()));
const MEANINGFUL_LOWER = new Set([...MEANINGFUL_WHEN_BLANK].map((name) => name.toLowerCase()));

/**
 * Counts the element among its parent's descendants, as domino's getElementsByTagName("AREA") would:
 * from an HTML element it matches HTML elements named "area" and other elements named "AREA"; from
 * any other element, only elements named "AREA".
 */
function addTo(parent: Facts, element: DomElement): void {
  const name = element.localName;
  const exact = (VOID.has(name) ? VOID_BIT : 0) | (MEANINGFUL_WHEN_BLANK.has(name) ? MEANINGFUL_BIT : 0);
  const lower = (VOID_LOWER.has(name) ? VOID_BIT : 0) | (MEANINGFUL_LOWER.has(name) ? MEANINGFUL_BIT : 0);
  parent.fromOther |= exact;
  parent.fromHtml |= element.namespaceURI === HTML_NAMESPACE ? lower : exact;
}

function createIndex(text: string, facts: Map<DomNode, Facts>): TextIndex {
  const runs = whitespaceRuns(text);
  const factsOf = (element: DomElement) => facts.get(element) as Facts;
  return {
    range: factsOf,
    textOf(element) {
      const { start, end } = factsOf(element);
      return text.slice(start, end);
    },
    isWhitespaceOnly(element) {
      const { start, end } = factsOf(element);
      return (runs.wsEnd[start] as number) >= end;
    },
    edges(element) {
      const { start, end } = factsOf(element);
      const asciiEnd = Math.min(runs.asciiEnd[start] as number, end);
      const wsEnd = Math.min(runs.wsEnd[start] as number, end);
      if (wsEnd === end) {
        // Whitespace only: all of it is leading, as the regular expression matched it.
        return {
          leading: text.slice(start, end),
          leadingAscii: text.slice(start, asciiEnd),
          leadingNonAscii: text.slice(asciiEnd, end),
          trailing: "",
          trailingAscii: "",
          trailingNonAscii: "",
        };
      }
      const wsStart = runs.wsStart[end] as number;
      const asciiStart = runs.asciiStart[end] as number;
      return {
        leading: text.slice(start, wsEnd),
        leadingAscii: text.slice(start, asciiEnd),
        leadingNonAscii: text.slice(asciiEnd, wsEnd),
        trailing: text.slice(wsStart, end),
        trailingAscii: text.slice(asciiStart, end),
        trailingNonAscii: text.slice(wsStart, asciiStart),
      };
    },
    firstChar(element) {
      const { start, end } = factsOf(element);
      return start < end ? (text[start] as string) : "";
    },
    lastChar(element) {
      const { start, end } = factsOf(element);
      return start < end ? (text[end - 1] as string) : "";
    },
    hasVoid: (element) => (bitsOf(element, factsOf(element)) & VOID_BIT) !== 0,
    hasMeaningfulWhenBlank: (element) => (bitsOf(element, factsOf(element)) & MEANINGFUL_BIT) !== 0,
  };
}

function bitsOf(element: DomElement, facts: Facts): number {
  return element.namespaceURI === HTML_NAMESPACE ? facts.fromHtml : facts.fromOther;
}

/**
 * For each position, where the run of whitespace starting there ends (`wsEnd`, JavaScript's `\s`;
 * `asciiEnd`, `[ \t\r\n]`) and where the run ending there starts (`wsStart`, `asciiStart`).
 */
function whitespaceRuns(text: string) {
  const n = text.length;
  const wsEnd = new Int32Array(n + 1);
  const asciiEnd = new Int32Array(n + 1);
  const wsStart = new Int32Array(n + 1);
  const asciiStart = new Int32Array(n + 1);
  wsEnd[n] = n;
  asciiEnd[n] = n;
  for (let i = n - 1; i >= 0; i -= 1) {
    const code = text.charCodeAt(i);
    wsEnd[i] = isWhitespace(code) ? (wsEnd[i + 1] as number) : i;
    asciiEnd[i] = isAsciiWhitespace(code) ? (asciiEnd[i + 1] as number) : i;
  }
  for (let i = 1; i <= n; i += 1) {
    const code = text.charCodeAt(i - 1);
    wsStart[i] = isWhitespace(code) ? (wsStart[i - 1] as number) : i;
    asciiStart[i] = isAsciiWhitespace(code) ? (asciiStart[i - 1] as number) : i;
  }
  return { wsEnd, asciiEnd, wsStart, asciiStart };
}

function isAsciiWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** JavaScript's `\s`: WhiteSpace (tab, VT, FF, ZWNBSP and the space separators) and LineTerminator. */
export function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
