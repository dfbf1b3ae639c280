/** Lines longer than this are cut in Read and Edit output; minified files would flood the context. */
export const MAX_LINE_CHARS = 2000;

/** One line as `cat -n` prints it: the number right-aligned in six columns, a tab, the line. */
export function formatLine(lineNumber: number, line: string): string {
  const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]` : line;
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/** The lines of `text` from `first` to `last` (1-based, inclusive), numbered; lines end at `\n`. */
export function numberedExcerpt(text: string, first: number, last: number): string {
  const from = Math.max(1, first);
  const { lines } = linesBetween(text, from, last, false);
  return lines.map((line, index) => formatLine(from + index, line)).join("\n");
}

/**
 * Lines `first` to `last` (1-based, inclusive) of `text` and how many it has (a final break does not
 * start another line), in one pass over its characters: only the lines asked for become strings, so
 * a file of ten million empty lines costs a scan, not ten million strings. Lines end at `\n`, or
 * with `terminal` also at `\r\n` and a lone `\r`, as a terminal shows them.
 */
export function linesBetween(text: string, first: number, last: number, terminal: boolean): { lines: string[]; total: number } {
  const lines: string[] = [];
  let total = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code !== 10 && !(terminal && code === 13)) continue;
    total += 1;
    if (total >= first && total <= last) lines.push(text.slice(start, i));
    if (terminal && code === 13 && text.charCodeAt(i + 1) === 10) i += 1;
    start = i + 1;
  }
  if (start < text.length || total === 0) {
    total += 1;
    if (total >= first && total <= last) lines.push(text.slice(start));
  }
  return { lines, total };
}

/** How many times `char` (one UTF-16 unit) occurs in `text` before `end`. */
export function countChar(text: string, char: string, end = text.length): number {
  const code = char.charCodeAt(0);
  let count = 0;
  for (let i = 0; i < end; i += 1) if (text.charCodeAt(i) === code) count += 1;
  return count;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
