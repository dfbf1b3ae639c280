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
  const inline: Range[] = [];
  // Code spans stay within a paragraph: they never cross a blank line.
  const span = /(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))*?[^`\n])\1(?!`)/g;
  for (const match of withoutFences.matchAll(span)) {
    inline.push({ start: match.index, end: match.index + match[0].length });
  }
  return [...fenced, ...inline].sort((a, b) => a.start - b.start);
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
  const withoutFences = blankRanges(text, fenced);
  const inline: Range[] = [];
  const span = /(?<=(?:^|[^\\`])(?:\\\\)*)(`+)(?!`)([^\n|]*?[^`\n|])\1(?!`)/g;
  for (const match of withoutFences.matchAll(span)) {
    inline.push({ start: match.index, end: match.index + match[0].length });
  }
  return [...fenced, ...inline].sort((a, b) => a.start - b.start);
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
