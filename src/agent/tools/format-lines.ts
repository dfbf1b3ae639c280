/** Lines longer than this are cut in Read and Edit output; minified files would flood the context. */
export const MAX_LINE_CHARS = 2000;

/** One line as `cat -n` prints it: the number right-aligned in six columns, a tab, the line. */
export function formatLine(lineNumber: number, line: string): string {
  const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]` : line;
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/** The lines of `text` from `first` to `last` (1-based, inclusive), numbered. */
export function numberedExcerpt(text: string, first: number, last: number): string {
  const lines = text.split("\n");
  // A final newline does not start another line.
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const from = Math.max(1, first);
  const to = Math.min(lines.length, last);
  const out: string[] = [];
  for (let n = from; n <= to; n += 1) out.push(formatLine(n, lines[n - 1] ?? ""));
  return out.join("\n");
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
