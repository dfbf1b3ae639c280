/** Half-open range of offsets into a text. */
export interface Range {
  start: number;
  end: number;
}

/**
 * Where a Markdown text holds code: fenced blocks (fence lines included) and inline code spans.
 * An approximation of CommonMark good enough to tell prose from code; sorted, non-overlapping.
 */
export function codeRanges(text: string): Range[] {
  const fenced = fencedCodeRanges(text);
  const withoutFences = blankRanges(text, fenced);
  return [...fenced, ...paragraphCodeSpans(withoutFences)].sort((a, b) => a.start - b.start);
}

/**
 * Inline code spans as a paragraph holds them: a run of backticks closes at the next run of the same
 * length that does not start a line, unless a blank line comes first (spans never cross one).
 *
 * A scan, not a regular expression: the former `/(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))*?[^`\n])\1(?!`)/`
 * read on to the end of the paragraph from every opener that does not close, and "`\n" repeated
 * (65,000 characters, a comment anyone may post) held the event loop 8 s.
 */
function paragraphCodeSpans(text: string): Range[] {
  const runs = backtickRuns(text);
  // For each run, the next run of the same length that can close a span (not at a line's start).
  const nextCloser = new Array<number>(runs.length).fill(-1);
  const lastCloser = new Map<number, number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const run = runs[index] as Range;
    const length = run.end - run.start;
    nextCloser[index] = lastCloser.get(length) ?? -1;
    if (run.start > 0 && text.charAt(run.start - 1) !== "\n") lastCloser.set(length, index);
  }
  const spans: Range[] = [];
  let blankLine = -1;
  for (let index = 0; index < runs.length; index++) {
    const opener = runs[index] as Range;
    if (blankLine < opener.end) blankLine = nextBlankLine(text, opener.end);
    const closerIndex = nextCloser[index] as number;
    const closer = runs[closerIndex];
    if (closer === undefined || closer.start > blankLine) continue;
    spans.push({ start: opener.start, end: closer.end });
    index = closerIndex;
  }
  return spans;
}

/** The first line break at or after `from` that a blank line follows (only spaces or tabs, then a break); the text's length if none. */
function nextBlankLine(text: string, from: number): number {
  for (let lineBreak = text.indexOf("\n", from); lineBreak !== -1; lineBreak = text.indexOf("\n", lineBreak + 1)) {
    let after = lineBreak + 1;
    while (text.charAt(after) === " " || text.charAt(after) === "\t") after++;
    if (text.charAt(after) === "\n") return lineBreak;
  }
  return text.length;
}

/** Replaces every character in the ranges except line breaks by a space, keeping all offsets. */
export function blankRanges(text: string, ranges: readonly Range[]): string {
  let result = "";
  let position = 0;
  for (const range of ranges) {
    result += text.slice(position, range.start) + text.slice(range.start, range.end).replace(/[^\n]/g, " ");
    position = range.end;
  }
  return result + text.slice(position);
}

/** Applies `transform` to the prose between code ranges; code is kept as written. */
export function mapProse(text: string, transform: (prose: string) => string): string {
  let result = "";
  let position = 0;
  for (const range of codeRanges(text)) {
    result += transform(text.slice(position, range.start)) + text.slice(range.start, range.end);
    position = range.end;
  }
  return result + transform(text.slice(position));
}

function fencedCodeRanges(text: string): Range[] {
  const ranges: Range[] = [];
  let fence: { char: string; length: number; start: number } | null = null;
  let offset = 0;
  for (const line of text.split("\n")) {
    const lineEnd = offset + line.length;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null) {
      if (marker !== undefined) fence = { char: marker.charAt(0), length: marker.length, start: offset };
    } else if (marker !== undefined && marker.charAt(0) === fence.char && marker.length >= fence.length && line.trim() === marker) {
      ranges.push({ start: fence.start, end: lineEnd });
      fence = null;
    }
    offset = lineEnd + 1;
  }
  // An unclosed fence runs to the end of the text.
  if (fence !== null) ranges.push({ start: fence.start, end: text.length });
  return ranges;
}

/**
 * The code GitHub surely renders as code, for a text about to be escaped outside it (the opposite
 * error of `codeRanges`: what is taken for prose here is at worst shown with a backslash too many).
 * Fenced blocks only when the fence starts at the line's first column (then no list item or quote
 * can hold it, and no backtick in a backtick fence's info string); code spans only on one line, not
 * opened by an escaped backtick, and without a `|` (a table would split the cell there first).
 */
export function unambiguousCodeRanges(text: string): Range[] {
  const fenced = topLevelFences(text);
  return [...fenced, ...oneLineCodeSpans(blankRanges(text, fenced))].sort((a, b) => a.start - b.start);
}

/**
 * The code spans GitHub surely renders as such: on one line, without a `|` (a table would split the
 * cell there first), not opened by an escaped backtick (one after an odd run of backslashes, or after
 * a backtick and an even run). An opener is a whole run of backticks; it closes at the next run of
 * the same length, unless a line break or a `|` comes first.
 *
 * A scan, not a regular expression: one with a look-behind over the backslashes and a lazy middle
 * re-read the rest of the line from every opener that does not close (quadratic on a long run of
 * backslashes or of unclosed openers), and this runs on text from outside.
 */
export function oneLineCodeSpans(text: string): Range[] {
  const runs = backtickRuns(text);
  // For each run, the index of the next run of the same length (-1: none), found from the right.
  const nextOfLength = new Array<number>(runs.length).fill(-1);
  const lastOfLength = new Map<number, number>();
  for (let index = runs.length - 1; index >= 0; index--) {
    const length = (runs[index] as Range).end - (runs[index] as Range).start;
    nextOfLength[index] = lastOfLength.get(length) ?? -1;
    lastOfLength.set(length, index);
  }
  const spans: Range[] = [];
  // The next line break and the next `|` at or after a point; each only moves forward.
  let lineBreak = -1;
  let pipe = -1;
  for (let index = 0; index < runs.length; index++) {
    const opener = runs[index] as Range;
    if (!opensCodeSpan(text, opener.start)) continue;
    if (lineBreak < opener.end) lineBreak = indexOrEnd(text, "\n", opener.end);
    if (pipe < opener.end) pipe = indexOrEnd(text, "|", opener.end);
    const closerIndex = nextOfLength[index] as number;
    const closer = runs[closerIndex];
    if (closer === undefined || closer.start > Math.min(lineBreak, pipe)) continue;
    spans.push({ start: opener.start, end: closer.end });
    index = closerIndex;
  }
  return spans;
}

/** Every maximal run of backticks, in order. */
function backtickRuns(text: string): Range[] {
  const runs: Range[] = [];
  for (let start = text.indexOf("`"); start !== -1; ) {
    let end = start + 1;
    while (text.charAt(end) === "`") end++;
    runs.push({ start, end });
    start = text.indexOf("`", end);
  }
  return runs;
}

/** Whether the run of backticks at `start` is not escaped: an even run of backslashes before it, and no backtick before those. */
function opensCodeSpan(text: string, start: number): boolean {
  let before = start - 1;
  while (before >= 0 && text.charAt(before) === "\\") before--;
  return (start - 1 - before) % 2 === 0 && text.charAt(before) !== "`";
}

function indexOrEnd(text: string, search: string, from: number): number {
  const index = text.indexOf(search, from);
  return index === -1 ? text.length : index;
}

/** Fenced blocks opened at the first column; an unclosed one runs to the end (`closed: false`). */
export function topLevelFences(text: string): Array<Range & { fence: string; closed: boolean }> {
  const ranges: Array<Range & { fence: string; closed: boolean }> = [];
  let fence: { marker: string; start: number } | null = null;
  let offset = 0;
  for (const line of text.split("\n")) {
    const lineEnd = offset + line.length;
    if (fence === null) {
      const opener = /^(`{3,}(?=[^`]*$)|~{3,})/.exec(line)?.[1];
      if (opener !== undefined) fence = { marker: opener, start: offset };
    } else {
      const closer = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
      if (closer !== undefined && closer.charAt(0) === fence.marker.charAt(0) && closer.length >= fence.marker.length) {
        ranges.push({ start: fence.start, end: lineEnd, fence: fence.marker, closed: true });
        fence = null;
      }
    }
    offset = lineEnd + 1;
  }
  if (fence !== null) ranges.push({ start: fence.start, end: text.length, fence: fence.marker, closed: false });
  return ranges;
}
