import { INVISIBLE_CHARACTERS } from "../../util/sanitize-untrusted-text.js";

/**
 * Untrusted text (issue bodies, comments, repository files) goes into the prompt inside a labelled
 * tag. The text cannot close the tag early, hidden HTML comments are dropped (GitHub does not show
 * them, so no maintainer read them), and invisible or bidirectional-override characters that can hide
 * text from a reviewer are removed.
 */

const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** Hidden HTML comments and invisible characters out: what fenceUntrusted does to the text it fences. */
export function sanitizeUntrusted(text: string): string {
  return text.replace(HTML_COMMENT, "[hidden HTML comment removed]").replace(INVISIBLE_CHARACTERS, "");
}

/**
 * Wraps `text` in `<tag attr...>` … `</tag>`. Any `<tag` or `</tag` inside the text is neutralised,
 * so the model always sees where the data ends.
 */
export function fenceUntrusted(tag: string, text: string, attributes: Record<string, string> = {}): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${value.replace(/["<>&]/g, "")}"`)
    .join("");
  const escaped = sanitizeUntrusted(text).replace(new RegExp(`<(/?)(${tag})`, "gi"), "&lt;$1$2");
  return `<${tag}${attrs}>\n${escaped}\n</${tag}>`;
}

/** Cuts `text` to `max` characters, saying how much was left out. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters cut]`;
}
