// The conversion loop of turndown 7.2.5 (MIT, Copyright (c) 2017 Dom Christie; see markdown-rules.ts)
// made iterative and bounded: the same output for pages within the bounds below.
import { BLOCK, type DomElement, type DomNode, isElement, isText, MEANINGFUL_WHEN_BLANK, VOID } from "./dom.js";
import type { TextIndex } from "./index-text.js";
import { CONTENTLESS, escapeMarkdown, type Rule, type RuleContext, replacement, ruleFor, trimLeadingNewlines, trimTrailingNewlines } from "./markdown-rules.js";

/**
 * Quote and list levels drawn on a line (`> `, or a list item's indentation); deeper ones are
 * converted without adding to the prefix. Each level drawn adds its prefix to every line under it,
 * so without a bound the markdown grows with the depth times the lines: 256 levels of `<blockquote>`
 * around 50 000 short lines made 27 M characters.
 */
const MAX_PREFIX_LEVELS = 8;

export interface RenderedMarkdown {
  text: string;
  /** Characters left out to stay within the cap: text never converted, and converted text cut off. */
  omittedChars: number;
}

interface Frame {
  node: DomElement;
  rule: Rule;
  isBlock: boolean;
  /** The element's place among its parent's element children. */
  elementIndex: number;
  /** Whether this element's quote or list level is drawn (false past MAX_PREFIX_LEVELS). */
  drawsPrefix: boolean;
  isCode: boolean;
  /** Quote and list levels drawn around this element's content, its own included. */
  prefixLevels: number;
  leading: string;
  trailing: string;
  output: string[];
  /** Characters in output (an upper bound: joins only drop newlines). */
  length: number;
  next: DomNode | null;
  /** Where in the index's text this element's text ends. */
  end: number;
  /** Element children met so far. */
  elementCount: number;
  /** Where in the index's text the children converted so far end. */
  textDone: number;
  lastElementChild: DomNode | null | undefined;
}

/**
 * Markdown for the children of root, as turndown made it, walking the tree with a stack of its own.
 * No element's markdown grows past `cap` characters: once an element's converted children pass it,
 * the rest of them are left out (and counted), and a longer piece is cut. Each element's content is
 * copied a bounded number of times, so the work is at most the depth times the cap, whatever the page.
 */
export function renderMarkdown(root: DomElement, index: TextIndex, cap: number): RenderedMarkdown {
  let omitted = 0;
  const stack: Frame[] = [frameFor(root, "default", null, "", "", index)];

  const append = (frame: Frame, text: string) => {
    let piece = text;
    if (piece.length > cap) {
      omitted += piece.length - cap;
      piece = piece.slice(0, cap);
    }
    join(frame.output, piece);
    frame.length += piece.length;
  };

  for (;;) {
    const frame = stack.at(-1) as Frame;
    if (frame.next !== null && frame.length > cap) {
      omitted += frame.end - frame.textDone;
      frame.next = null;
    }
    const child = frame.next;
    if (child === null) {
      stack.pop();
      const content = frame.output.join("");
      const parent = stack.at(-1);
      if (parent === undefined) return { text: content.trim(), omittedChars: omitted };
      append(parent, finish(frame, content, parent, index));
      parent.textDone = frame.end;
      continue;
    }
    frame.next = child.nextSibling;
    if (isText(child)) {
      append(frame, frame.isCode ? child.data : escapeMarkdown(child.data));
      frame.textDone += child.data.length;
    } else if (isElement(child)) {
      const entered = enter(child, frame, index);
      if (CONTENTLESS.has(entered.rule)) {
        append(frame, finish(entered, "", frame, index));
        frame.textDone = entered.end;
      } else {
        stack.push(entered);
      }
    } else {
      append(frame, "");
    }
  }
}

/** The frame of an element met as a child of parent: turndown's per-node facts and rule, computed once. */
function enter(node: DomElement, parent: Frame, index: TextIndex): Frame {
  const blank =
    !VOID.has(node.nodeName) &&
    !MEANINGFUL_WHEN_BLANK.has(node.nodeName) &&
    index.isWhitespaceOnly(node) &&
    !index.hasVoid(node) &&
    !index.hasMeaningfulWhenBlank(node);
  const rule = blank ? "blank" : ruleFor(node);
  const { leading, trailing } = BLOCK.has(node.nodeName) ? NO_WHITESPACE : flankingWhitespace(node, index);
  const frame = frameFor(node, rule, parent, leading, trailing, index);
  parent.elementCount += 1;
  return frame;
}

const NO_WHITESPACE = { leading: "", trailing: "" };

function frameFor(node: DomElement, rule: Rule, parent: Frame | null, leading: string, trailing: string, index: TextIndex): Frame {
  const drawsPrefix = parent === null || parent.prefixLevels < MAX_PREFIX_LEVELS;
  const drawn = drawsPrefix && (rule === "blockquote" || rule === "listItem") ? 1 : 0;
  const { start, end } = index.range(node);
  return {
    node,
    rule,
    isBlock: BLOCK.has(node.nodeName),
    elementIndex: parent === null ? 0 : parent.elementCount,
    drawsPrefix,
    isCode: node.nodeName === "CODE" || parent?.isCode === true,
    prefixLevels: (parent === null ? 0 : parent.prefixLevels) + drawn,
    leading,
    trailing,
    output: [],
    length: 0,
    next: node.firstChild,
    end,
    elementCount: 0,
    textDone: start,
    lastElementChild: undefined,
  };
}

function finish(element: Frame, content: string, parent: Frame, index: TextIndex): string {
  const body = element.leading || element.trailing ? content.trim() : content;
  const context: RuleContext = {
    isBlock: element.isBlock,
    elementIndex: element.elementIndex,
    drawsPrefix: element.drawsPrefix,
    isLastElement: element.rule === "list" && lastElementChild(parent) === element.node,
    codeText: element.rule === "fencedCodeBlock" ? index.textOf(element.node.firstChild as DomElement) : "",
  };
  return element.leading + replacement(element.rule, element.node, body, context) + element.trailing;
}

/** Found once per parent: domino walks back from the last child each time it is asked. */
function lastElementChild(frame: Frame): DomNode | null {
  if (frame.lastElementChild === undefined) {
    let child = frame.node.lastChild;
    while (child !== null && !isElement(child)) child = child.previousSibling;
    frame.lastElementChild = child;
  }
  return frame.lastElementChild;
}

/** turndown's flankingWhitespace for an inline element: its text's edges, less ASCII space a neighbour already has. */
function flankingWhitespace(node: DomElement, index: TextIndex): { leading: string; trailing: string } {
  const edges = index.edges(node);
  const leading = edges.leadingAscii && flankedBySpace(node.previousSibling, index, "end") ? edges.leadingNonAscii : edges.leading;
  const trailing = edges.trailingAscii && flankedBySpace(node.nextSibling, index, "start") ? edges.trailingNonAscii : edges.trailing;
  return { leading, trailing };
}

function flankedBySpace(sibling: DomNode | null, index: TextIndex, side: "start" | "end"): boolean {
  if (sibling === null) return false;
  if (isText(sibling)) return side === "end" ? sibling.data.endsWith(" ") : sibling.data.startsWith(" ");
  if (isElement(sibling) && !BLOCK.has(sibling.nodeName)) return (side === "end" ? index.lastChar(sibling) : index.firstChar(sibling)) === " ";
  return false;
}

/** turndown's join: at most two newlines between pieces, and only the last piece may end with any. */
function join(output: string[], piece: string): void {
  const tail = output.pop() ?? "";
  const left = trimTrailingNewlines(tail);
  const right = trimLeadingNewlines(piece);
  const separator = "\n\n".slice(0, Math.max(tail.length - left.length, piece.length - right.length));
  if (left) output.push(left);
  if (separator) output.push(separator);
  if (right) output.push(right);
}
