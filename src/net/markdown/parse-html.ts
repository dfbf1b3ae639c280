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

/**
 * The page as a browser parses it (domino, the parser turndown used), inside one wrapper element as
 * turndown wrapped it; undefined for a page with a tag of more than maxAttributes attributes, and as
 * soon as the parser puts a node inside more than maxDepth elements below the wrapper.
 *
 * The depth is the parser's, not a count of tags: `<blockquote/>` opens a blockquote (only void and
 * foreign elements close themselves), a stray `</span>` closes nothing, misnested formatting tags are
 * reopened. It is checked while parsing because the parser's own work per tag grows with the depth of
 * its open elements: 256 K characters of `<div>` took two minutes to parse.
 */
export function parseHtml(html: string, { maxDepth, maxAttributes }: ParseLimits): DomElement | undefined {
  // An unclosed tag at the end of the page takes the wrapper's end tag as attributes: check what the parser reads.
  const wrapped = `<x-turndown id="turndown-root">${html}</x-turndown>`;
  if (hasManyAttributes(wrapped, maxAttributes)) return undefined;
  const parser = domino.createIncrementalHTMLParser();
  const document = parser.document();
  let tooDeep = false;
  document._setMutationHandler((mutation) => {
    if (mutation.type !== INSERT && mutation.type !== MOVE) return;
    const placed = (mutation.node ?? mutation.target) as DomNode;
    let levels = 0;
    for (let node = placed.parentNode; node !== null && !tooDeep; node = node.parentNode) {
      levels += 1;
      tooDeep = levels > maxDepth + WRAPPER_DEPTH;
    }
  });
  parser.end(wrapped);
  let more = true;
  while (more && !tooDeep) more = parser.process(() => tooDeep);
  document._setMutationHandler(null);
  return tooDeep ? undefined : ((document.getElementById("turndown-root") ?? undefined) as DomElement | undefined);
}
