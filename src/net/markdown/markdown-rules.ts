// Adapted from turndown 7.2.5 (MIT, Copyright (c) 2017 Dom Christie; the MIT License: permission is
// hereby granted, free of charge, to any person obtaining a copy of this software and associated
// documentation files, to deal in the Software without restriction, subject to including the above
// copyright notice and this permission notice in all copies or substantial portions of the Software.
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND), with the options Tackle used:
// atx headings, fenced code blocks, `-` bullets. Where turndown's regular expressions backtracked
// (the code span's spacing test, its delimiter search), the same answer is computed in one pass.
import type { DomElement } from "./dom.js";

/** Which of turndown's rules converts an element; `blank` and `remove` came before the default. */
export type Rule =
  | "blank"
  | "paragraph"
  | "lineBreak"
  | "heading"
  | "blockquote"
  | "list"
  | "listItem"
  | "fencedCodeBlock"
  | "horizontalRule"
  | "inlineLink"
  | "emphasis"
  | "strong"
  | "code"
  | "image"
  | "remove"
  | "default";

/** Elements whose content is code or chrome, not text a reader sees. */
const DROPPED = new Set(["script", "style", "noscript", "iframe", "svg", "template", "object", "embed"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/** turndown's choice for a non-blank element, in the order of its rules. */
export function ruleFor(node: DomElement): Rule {
  const name = node.nodeName.toLowerCase();
  if (name === "p") return "paragraph";
  if (name === "br") return "lineBreak";
  if (HEADINGS.has(name)) return "heading";
  if (name === "blockquote") return "blockquote";
  if (name === "ul" || name === "ol") return "list";
  if (name === "li") return "listItem";
  if (node.nodeName === "PRE" && node.firstChild?.nodeName === "CODE") return "fencedCodeBlock";
  if (name === "hr") return "horizontalRule";
  if (node.nodeName === "A" && node.getAttribute("href")) return "inlineLink";
  if (name === "em" || name === "i") return "emphasis";
  if (name === "strong" || name === "b") return "strong";
  if (node.nodeName === "CODE" && !(node.parentNode?.nodeName === "PRE" && node.previousSibling === null && node.nextSibling === null)) return "code";
  if (name === "img") return "image";
  if (DROPPED.has(name)) return "remove";
  return "default";
}

/** Rules whose replacement does not read the element's converted content: its subtree is not converted. */
export const CONTENTLESS = new Set<Rule>(["blank", "lineBreak", "fencedCodeBlock", "horizontalRule", "image", "remove"]);

/** What a rule needs besides the element and its content. */
export interface RuleContext {
  isBlock: boolean;
  /** The element's place among its parent's element children (an `<ol>` item's number). */
  elementIndex: number;
  /** Whether the element is the last element child of its parent. */
  isLastElement: boolean;
  /** False past the quote and list levels that are drawn: the content is not prefixed or indented again. */
  drawsPrefix: boolean;
  /** A fenced code block's code: the text of its first child. */
  codeText: string;
}

export function replacement(rule: Rule, node: DomElement, content: string, context: RuleContext): string {
  switch (rule) {
    case "blank":
      return context.isBlock ? "\n\n" : "";
    case "paragraph":
      return `\n\n${content}\n\n`;
    case "lineBreak":
      return "  \n";
    case "heading":
      return `\n\n${"#".repeat(Number(node.nodeName.charAt(1)))} ${content}\n\n`;
    case "blockquote":
      return `\n\n${context.drawsPrefix ? trimNewlines(content).replace(/^/gm, "> ") : trimNewlines(content)}\n\n`;
    case "list":
      return node.parentNode?.nodeName === "LI" && context.isLastElement ? `\n${content}` : `\n\n${content}\n\n`;
    case "listItem":
      return listItem(node, content, context);
    case "fencedCodeBlock":
      return fencedCodeBlock(node.firstChild as DomElement, context.codeText);
    case "horizontalRule":
      return "\n\n* * *\n\n";
    case "inlineLink": {
      const title = escapeLinkTitle(cleanAttribute(node.getAttribute("title")));
      return `[${content}](${escapeLinkDestination(node.getAttribute("href") ?? "")}${title ? ` "${title}"` : ""})`;
    }
    case "emphasis":
      return content.trim() ? `_${content}_` : "";
    case "strong":
      return content.trim() ? `**${content}**` : "";
    case "code":
      return codeSpan(content);
    case "image": {
      const alt = escapeMarkdown(cleanAttribute(node.getAttribute("alt")));
      const src = escapeLinkDestination(node.getAttribute("src") || "");
      const title = cleanAttribute(node.getAttribute("title"));
      return src ? `![${alt}](${src}${title ? ` "${escapeLinkTitle(title)}"` : ""})` : "";
    }
    case "remove":
      return "";
    case "default":
      return context.isBlock ? `\n\n${content}\n\n` : content;
  }
}

function listItem(node: DomElement, content: string, context: RuleContext): string {
  const parent = node.parentNode as DomElement;
  let prefix = "-   ";
  if (parent.nodeName === "OL") {
    const start = parent.getAttribute("start");
    prefix = `${start ? Number(start) + context.elementIndex : context.elementIndex + 1}.  `;
  }
  let body = trimNewlines(content) + (content.endsWith("\n") ? "\n" : "");
  if (context.drawsPrefix) body = body.replace(/\n/g, `\n${" ".repeat(prefix.length)}`);
  return prefix + body + (node.nextSibling !== null ? "\n" : "");
}

function fencedCodeBlock(code: DomElement, text: string): string {
  const language = /language-(\S+)/.exec(code.getAttribute("class") || "")?.[1] ?? "";
  let fenceSize = 3;
  for (const match of text.matchAll(/^`{3,}/gm)) if (match[0].length >= fenceSize) fenceSize = match[0].length + 1;
  const fence = "`".repeat(fenceSize);
  return `\n\n${fence}${language}\n${text.endsWith("\n") ? text.slice(0, -1) : text}\n${fence}\n\n`;
}

function codeSpan(content: string): string {
  if (!content) return "";
  const code = content.replace(/\r?\n|\r/g, " ");
  const extraSpace = needsExtraSpace(code) ? " " : "";
  const runs = new Set<number>();
  for (const match of code.matchAll(/`+/g)) runs.add(match[0].length);
  let size = 1;
  while (runs.has(size)) size += 1;
  const delimiter = "`".repeat(size);
  return delimiter + extraSpace + code + extraSpace + delimiter;
}

/**
 * turndown's `/^`|^ .*?[^ ].* $|`$/` without its backtracking (quadratic on a long span that starts
 * with a space and does not end with one): a backtick at either end, or a space at both ends around
 * a non-space, with at most one line terminator (which `.` does not match, but `[^ ]` does) between.
 */
export function needsExtraSpace(code: string): boolean {
  if (code.startsWith("`") || code.endsWith("`")) return true;
  if (code.length < 3 || !code.startsWith(" ") || !code.endsWith(" ")) return false;
  let terminators = 0;
  let nonSpace = false;
  for (let i = 1; i < code.length - 1; i += 1) {
    const char = code[i];
    if (char === "\n" || char === "\r" || char === "\u2028" || char === "\u2029") terminators += 1;
    else if (char !== " ") nonSpace = true;
  }
  return terminators === 1 || (terminators === 0 && nonSpace);
}

const ESCAPES: [RegExp, string][] = [
  [/\\/g, "\\\\"],
  [/\*/g, "\\*"],
  [/^-/g, "\\-"],
  [/^\+ /g, "\\+ "],
  [/^(=+)/g, "\\$1"],
  [/^(#{1,6}) /g, "\\$1 "],
  [/`/g, "\\`"],
  [/^~~~/g, "\\~~~"],
  [/\[/g, "\\["],
  [/\]/g, "\\]"],
  [/^>/g, "\\>"],
  [/_/g, "\\_"],
  [/^(\d+)\. /g, "$1\\. "],
];

/** The characters the escapes above look for anywhere, and those they look for at the start. */
const ESCAPED_ANYWHERE = /[\\*`[\]_]/;
const ESCAPED_AT_START = /^[-+=#~>\d]/;

export function escapeMarkdown(text: string): string {
  if (!ESCAPED_ANYWHERE.test(text) && !ESCAPED_AT_START.test(text)) return text;
  return ESCAPES.reduce((escaped, [pattern, replacement]) => escaped.replace(pattern, replacement), text);
}

function cleanAttribute(attribute: string | null): string {
  return attribute ? attribute.replace(/(\n+\s*)+/g, "\n") : "";
}

function escapeLinkDestination(destination: string): string {
  const escaped = destination.replace(/([<>()])/g, "\\$1");
  return escaped.includes(" ") ? `<${escaped}>` : escaped;
}

function escapeLinkTitle(title: string): string {
  return title.replace(/"/g, '\\"');
}

export function trimLeadingNewlines(text: string): string {
  let start = 0;
  while (text.charCodeAt(start) === 0x0a) start += 1;
  return start === 0 ? text : text.slice(start);
}

export function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

function trimNewlines(text: string): string {
  return trimTrailingNewlines(trimLeadingNewlines(text));
}
