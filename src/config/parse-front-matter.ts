import { isMap } from "yaml";
import { parseBoundedYaml } from "./parse-bounded-yaml.js";

export type FrontMatter =
  /** `data` is the YAML mapping between the `---` lines ({} when empty); `body` is the rest, trimmed. */
  | { kind: "ok"; data: Record<string, unknown>; body: string }
  /** The text does not start with a `---` line. */
  | { kind: "none"; body: string }
  | { kind: "invalid"; problem: string };

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/**
 * Splits a Markdown file's YAML front matter (between `---` lines at the very top, as Jekyll and
 * Claude Code write it) from its body. Pure: problems come back as text naming the line.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const opening = OPENING.exec(source);
  if (!opening) return { kind: "none", body: source.trim() };
  const rest = source.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { kind: "invalid", problem: "the front matter has no closing `---` line" };
  const yamlText = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).trim();

  const parsed = parseBoundedYaml(yamlText);
  // The front matter starts on the file's second line.
  const where = (line: number | undefined) => (line === undefined ? "" : ` (line ${line + 1})`);
  if (parsed.kind === "refused") return { kind: "invalid", problem: `the front matter ${parsed.problem}${where(parsed.line)}` };
  if (parsed.kind === "invalid") {
    const first = parsed.problems[0];
    return { kind: "invalid", problem: `the front matter is not valid YAML: ${first?.message ?? "unreadable"}${where(first?.line)}` };
  }
  if (parsed.doc.contents === null) return { kind: "ok", data: {}, body };
  if (!isMap(parsed.doc.contents)) return { kind: "invalid", problem: "the front matter must be a mapping of keys to values" };
  return { kind: "ok", data: parsed.data as Record<string, unknown>, body };
}
