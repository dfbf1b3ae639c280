// Adapted from turndown 7.2.5 (MIT, Copyright (c) 2017 Dom Christie), whose collapseWhitespace is in
// turn adapted from collapse-whitespace (MIT, Copyright (c) 2014 Luc Thevenard). The MIT License:
// permission is hereby granted, free of charge, to any person obtaining a copy of this software and
// associated documentation files, to deal in the Software without restriction, subject to including
// the above copyright notices and this permission notice in all copies or substantial portions of the
// Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
import { BLOCK, type DomNode, type DomText, isElement, VOID } from "./dom.js";

const isPre = (node: DomNode) => node.nodeName === "PRE";

/**
 * Collapses runs of ASCII whitespace in text to one space and drops what a browser would not show
 * (space at the start and end of blocks, after a line break, next to a space); removes comments and
 * every other node that is neither text nor element. Leaves `<pre>` as it is. One pass, no recursion.
 */
export function collapseWhitespace(element: DomNode): void {
  if (element.firstChild === null || isPre(element)) return;
  let prevText: DomText | null = null;
  let keepLeadingWs = false;
  let prev: DomNode | null = null;
  let node = next(prev, element);
  while (node !== element) {
    if (isCharacterData(node)) {
      let text = node.data.replace(/[ \r\n\t]+/g, " ");
      if ((prevText === null || prevText.data.endsWith(" ")) && !keepLeadingWs && text.startsWith(" ")) text = text.slice(1);
      if (text === "") {
        node = remove(node);
        continue;
      }
      node.data = text;
      prevText = node;
    } else if (isElement(node)) {
      if (BLOCK.has(node.nodeName) || node.nodeName === "BR") {
        if (prevText !== null) trimTrailingSpace(prevText);
        prevText = null;
        keepLeadingWs = false;
      } else if (VOID.has(node.nodeName) || isPre(node)) {
        // Around an inline void element or an inline <pre>, space stays.
        prevText = null;
        keepLeadingWs = true;
      } else if (prevText !== null) {
        keepLeadingWs = false;
      }
    } else {
      node = remove(node);
      continue;
    }
    const nextNode = next(prev, node);
    prev = node;
    node = nextNode;
  }
  if (prevText !== null) {
    trimTrailingSpace(prevText);
    if (prevText.data === "") remove(prevText);
  }
}

/** Text, or a CDATA section (which domino's HTML parser does not make). */
function isCharacterData(node: DomNode): node is DomText {
  return node.nodeType === 3 || node.nodeType === 4;
}

function trimTrailingSpace(node: DomText): void {
  if (node.data.endsWith(" ")) node.data = node.data.slice(0, -1);
}

/** Removes the node and returns the next one in document order after it, its subtree skipped. */
function remove(node: DomNode): DomNode {
  const following = (node.nextSibling ?? node.parentNode) as DomNode;
  (node.parentNode as DomNode).removeChild(node);
  return following;
}

/** The next node in the walk: into children unless coming back up from them or at a <pre>. */
function next(prev: DomNode | null, current: DomNode): DomNode {
  if ((prev !== null && prev.parentNode === current) || isPre(current)) return (current.nextSibling ?? current.parentNode) as DomNode;
  return (current.firstChild ?? current.nextSibling ?? current.parentNode) as DomNode;
}
