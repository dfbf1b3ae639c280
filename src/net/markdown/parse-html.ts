import domino from "@mixmark-io/domino";
import type { DomElement, DomNode } from "./dom.js";
import { hasManyAttributes } from "./has-many-attributes.js";

export interface ParseLimits {
  /** Elements around any node, below the wrapper. */
  maxDepth: number;
  /** Attributes of any one tag (see hasManyAttributes). */
  maxAttributes: number;
}

const INSERT = 6;
const MOVE = 5;
/** The wrapper, body, html and the document: the ancestors of the page's own top-level nodes. */
const WRAPPER_DEPTH = 4;

/** What parseHtml reads of domino's nodes beyond the DOM: an element's attribute count, a template's contents. */
interface ParsedNode extends DomNode {
  readonly _numattrs?: number;
  readonly localName?: string;
  readonly content?: object;
}

/**
 * The page as a browser parses it (domino, the parser turndown used), inside one wrapper element as
 * turndown wrapped it; undefined for a page with a tag of more than maxAttributes attributes, as soon
 * as the parser puts a node inside more than maxDepth elements below the wrapper, and as soon as the
 * elements it has created, each counted with its attributes, outnumber the characters it reads.
 *
 * The depth is the parser's, not a count of tags: `<blockquote/>` opens a blockquote (only void and
 * foreign elements close themselves), a stray `</span>` closes nothing, misnested formatting tags are
 * reopened. It is checked while parsing because the parser's own work per tag grows with the depth of
 * its open elements: 256 K characters of `<div>` took two minutes to parse.
 *
 * The count of created elements is the parser's too, because no bound on the text bounds it: a
 * formatting element (`<b>`, `<font>`, …) left open when its block closes is reopened, as a copy with
 * all its attributes, for every later block ("reconstruct the active formatting elements"), and up to
 * about forty of them at once (three identical ones of each kind, any number that differ). Of a tag
 * in the text, the parser makes at most one element per three characters and one attribute per two,
 * so an ordinary page stays well within its length; `<p><b a0 … a249></p>` followed by `<p>x` × 60,000
 * (240 KB) made 15 million attributes (40 s), and three such `<b>`, `<i>`, `<u>` exhausted a 4 GB heap.
 * (The clones the adoption agency builds detached are seen when their subtree is inserted, at most
 * three of them under the one counted: a constant factor.)
 *
 * A template's contents are parsed into a fragment of another document, which domino reports no
 * mutations of: its fragments are marked as in their document, so that their nodes are counted and
 * measured (from the template's own place) like any other.
 */
export function parseHtml(html: string, { maxDepth, maxAttributes }: ParseLimits): DomElement | undefined {
  // An unclosed tag at the end of the page takes the wrapper's end tag as attributes: check what the parser reads.
  const wrapped = `<x-turndown id="turndown-root">${html}</x-turndown>`;
  if (hasManyAttributes(wrapped, maxAttributes)) return undefined;
  const parser = domino.createIncrementalHTMLParser();
  const document = parser.document();
  const templateOf = new WeakMap<object, DomNode>();
  let created = 0;
  let tooMuch = false;
  const onMutation = (mutation: { type: number; target: unknown; node?: unknown }) => {
    if (mutation.type !== INSERT && mutation.type !== MOVE) return;
    const placed = (mutation.node ?? mutation.target) as ParsedNode;
    if (mutation.type === INSERT && placed.nodeType === 1) {
      created += 1 + (placed._numattrs ?? 0);
      if (placed.localName === "template" && placed.content !== undefined) watchTemplate(placed.content, placed);
    }
    let levels = 0;
    for (let node = parentOf(placed); node !== null && !tooMuch; node = parentOf(node)) {
      levels += 1;
      tooMuch = levels > maxDepth + WRAPPER_DEPTH;
    }
    tooMuch ||= created > wrapped.length;
  };
  const parentOf = (node: DomNode) => node.parentNode ?? templateOf.get(node) ?? null;
  const watchTemplate = (contents: object, template: DomNode) => {
    // domino reports a node's insertion to its document only when the parent is "rooted" in it.
    Object.defineProperty(contents, "rooted", { get: () => true });
    templateOf.set(contents, template);
  };
  document._setMutationHandler(onMutation);
  document._templateDoc._setMutationHandler(onMutation);
  parser.end(wrapped);
  let more = true;
  while (more && !tooMuch) more = parser.process(() => tooMuch);
  document._setMutationHandler(null);
  document._templateDoc._setMutationHandler(null);
  return tooMuch ? undefined : ((document.getElementById("turndown-root") ?? undefined) as DomElement | undefined);
}
