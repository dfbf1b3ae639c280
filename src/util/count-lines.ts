/**
 * Line counting for the diff caps, one rule for the agent-side estimate and the host's publish
 * check: a line ends at `\n`, `\r\n`, a lone `\r`, U+2028, U+2029 or NEL (U+0085). Editors, JavaScript
 * engines and YAML 1.1 parsers break lines at these, so a change that counted `\n` only could hide
 * 5,000 statements separated by `\r` in one "line". Works on bytes (latin1 strings: one char per
 * byte), so binary content counts the same way, and U+2028/U+2029/U+0085 are their UTF-8 bytes.
 */
const LINE_BREAK = /\r\n|\r|\n|\xe2\x80[\xa8\xa9]|\xc2\x85/;

/** The lines of `content` (bytes, or text that will be encoded as UTF-8); a last line without a break counts. */
export function splitLines(content: Buffer | string): string[] {
  return sizedLines(content).map((sized) => sized.line);
}

/**
 * The lines of `content` with the bytes each takes, its own line break included: `\r\n` and NEL are
 * two bytes, U+2028 and U+2029 three (700 U+2028 breaks counted as one byte each passed a 1,000-byte cap
 * with 2,100 bytes).
 */
function sizedLines(content: Buffer | string): Array<{ line: string; bytes: number }> {
  const text = (typeof content === "string" ? Buffer.from(content, "utf8") : content).toString("latin1");
  const out: Array<{ line: string; bytes: number }> = [];
  const breaks = new RegExp(LINE_BREAK.source, "g");
  let start = 0;
  for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
    out.push({ line: text.slice(start, match.index), bytes: match.index + match[0].length - start });
    start = match.index + match[0].length;
  }
  if (start < text.length) out.push({ line: text.slice(start), bytes: text.length - start });
  return out;
}

/** How many lines `content` holds, by {@link splitLines}' rule. */
export function lineCount(content: Buffer | string | undefined): number {
  return content === undefined ? 0 : splitLines(content).length;
}

/**
 * Lines in one side and not the other, both ways (a multiset difference): what any diff adds plus
 * removes, at least. `addedBytes` is the size of the lines only `after` has: what the change writes.
 */
export function lineDelta(before: Buffer | string, after: Buffer | string): { lines: number; addedBytes: number } {
  const remaining = new Map<string, number>();
  for (const line of splitLines(before)) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  let added = 0;
  let addedBytes = 0;
  for (const { line, bytes } of sizedLines(after)) {
    const count = remaining.get(line) ?? 0;
    if (count > 0) remaining.set(line, count - 1);
    else {
      added += 1;
      // A last line without a break still counts one byte for it, as before.
      addedBytes += Math.max(bytes, line.length + 1);
    }
  }
  let removed = 0;
  for (const count of remaining.values()) removed += count;
  return { lines: added + removed, addedBytes };
}

/**
 * The bytes the versions of one path add over `before`, each line counted once per path however many
 * versions carry it (the most copies any one version adds): what a series of commits writes to the
 * remote's history for that path, so an edit made in two commits counts once, and lines a later
 * commit removed still count. With one version it is {@link lineDelta}'s `addedBytes`.
 */
export function addedBytesOver(before: Buffer | string, versions: ReadonlyArray<Buffer | string>): number {
  const base = new Map<string, number>();
  for (const line of splitLines(before)) base.set(line, (base.get(line) ?? 0) + 1);
  const most = new Map<string, number>();
  /** The most bytes one copy of a line takes in any version, its break included. */
  const size = new Map<string, number>();
  for (const version of versions) {
    const counts = new Map<string, number>();
    for (const { line, bytes } of sizedLines(version)) {
      counts.set(line, (counts.get(line) ?? 0) + 1);
      size.set(line, Math.max(size.get(line) ?? 0, bytes, line.length + 1));
    }
    for (const [line, count] of counts) {
      const extra = count - (base.get(line) ?? 0);
      if (extra > (most.get(line) ?? 0)) most.set(line, extra);
    }
  }
  let bytes = 0;
  for (const [line, extra] of most) bytes += extra * (size.get(line) ?? line.length + 1);
  return bytes;
}
