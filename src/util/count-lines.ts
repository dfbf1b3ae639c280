import { randomInt } from "node:crypto";

/**
 * Line counting for the diff caps, one rule for the agent-side estimate and the host's publish
 * check: a line ends at `\n`, `\r\n`, a lone `\r`, U+2028, U+2029 or NEL (U+0085). Editors, JavaScript
 * engines and YAML 1.1 parsers break lines at these, so a change that counted `\n` only could hide
 * 5,000 statements separated by `\r` in one "line". Works on bytes, so binary content counts the
 * same way, and U+2028/U+2029/U+0085 are their UTF-8 bytes.
 *
 * The count runs on the Tackle process, so its cost is bounded: each line becomes one 64-bit key
 * (a keyed hash of its bytes, its length and its break) in a typed array, the keys are sorted
 * natively and compared in one pass, and a {@link LineBudget} caps the bytes and lines one check
 * compares. A file of 10 MiB of line breaks (10 million lines) took 6.6 s as one string and one
 * map step per line; what a budget does not cover is counted as an upper bound from its size.
 */

/** What one check (a publish, one write's estimate) may compare line by line on the host. */
export interface LineBudget {
  bytes: number;
  lines: number;
}

/** About 0.2 s of scanning and sorting on a slow core; a change past it is counted from sizes. */
export const MAX_COMPARED_BYTES = 64 * 1024 * 1024;
export const MAX_COMPARED_LINES = 2_000_000;

export function lineBudget(): LineBudget {
  return { bytes: MAX_COMPARED_BYTES, lines: MAX_COMPARED_LINES };
}

export interface LineDelta {
  /** Lines in one side and not the other, both ways: what any diff adds plus removes, at least. */
  lines: number;
  /** The bytes of the lines only `after` has (each with its break, at least one byte): what the change writes. */
  addedBytes: number;
  /** False when the budget did not cover it: then both are upper bounds from the sizes. */
  exact: boolean;
}

/** A line's key: hash (high word); length (24 bits), more hash (6 bits), break (2 bits) in the low word. */
const SEED_A = randomInt(2 ** 32 - 1);
const SEED_B = randomInt(2 ** 32 - 1);
const LENGTH_LIMIT = 0xffffff;
/** Where a 64-bit key's low and high 32-bit words sit in a Uint32Array over it. */
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

/** The break that starts at `i`, in bytes (0 when none): `\r\n` and NEL are two, U+2028/U+2029 three. */
function breakAt(bytes: Uint8Array, i: number): number {
  const b = bytes[i];
  if (b === 0x0a) return 1;
  if (b === 0x0d) return bytes[i + 1] === 0x0a ? 2 : 1;
  if (b === 0xe2) return bytes[i + 1] === 0x80 && (bytes[i + 2] === 0xa8 || bytes[i + 2] === 0xa9) ? 3 : 0;
  if (b === 0xc2) return bytes[i + 1] === 0x85 ? 2 : 0;
  return 0;
}

function toBytes(content: Uint8Array | string): Uint8Array {
  return typeof content === "string" ? Buffer.from(content, "utf8") : content;
}

/**
 * How many lines `content` holds; a last line without a break counts. One pass, nothing allocated
 * per line. With a budget its bytes are taken from it, and past it the size is the count (an upper bound).
 */
export function lineCount(content: Uint8Array | string | undefined, budget?: LineBudget): number {
  if (content === undefined) return 0;
  const bytes = toBytes(content);
  if (budget !== undefined && !spend(budget, bytes.length, 0)) return bytes.length;
  let lines = 0;
  let start = 0;
  for (let i = 0; i < bytes.length; ) {
    const size = breakAt(bytes, i);
    if (size === 0) i += 1;
    else {
      i += size;
      lines += 1;
      start = i;
    }
  }
  return start < bytes.length ? lines + 1 : lines;
}

/** The sorted keys of `bytes`' lines (equal lines are adjacent, and among them the longer breaks last). */
function sortedKeys(bytes: Uint8Array, lines: number): BigUint64Array {
  const keys = new BigUint64Array(lines);
  const words = new Uint32Array(keys.buffer);
  let at = 0;
  let a = SEED_A;
  let b = SEED_B;
  let start = 0;
  const close = (end: number, size: number) => {
    const length = Math.min(end - start, LENGTH_LIMIT);
    words[2 * at + LOW] = ((length << 8) | ((b >>> 26) << 2) | size) >>> 0;
    words[2 * at + HIGH] = a >>> 0;
    at += 1;
    a = SEED_A;
    b = SEED_B;
  };
  for (let i = 0; i < bytes.length; ) {
    const size = breakAt(bytes, i);
    if (size === 0) {
      const byte = bytes[i] as number;
      a = Math.imul(a ^ byte, 0x01000193);
      b = Math.imul(b ^ byte, 0x5bd1e995) ^ (b >>> 15);
      i += 1;
    } else {
      close(i, size);
      i += size;
      start = i;
    }
  }
  if (start < bytes.length) close(bytes.length, 0);
  return keys.sort();
}

/** A run of equal lines (breaks aside) in sorted keys: where it ends. */
function runEnd(words: Uint32Array, from: number, count: number): number {
  const high = words[2 * from + HIGH];
  const low = (words[2 * from + LOW] as number) >>> 2;
  let end = from + 1;
  while (end < count && words[2 * end + HIGH] === high && (words[2 * end + LOW] as number) >>> 2 === low) end += 1;
  return end;
}

/** The bytes of the line at `index`, its break included (at least one byte for it). */
function copyBytes(words: Uint32Array, index: number): number {
  const low = words[2 * index + LOW] as number;
  return (low >>> 8) + Math.max(low & 3, 1);
}

/** -1, 0 or 1: the order of the runs starting at `i` in `x` and at `j` in `y`, by line (not by break). */
function compareRuns(x: Uint32Array, i: number, y: Uint32Array, j: number): number {
  const xh = x[2 * i + HIGH] as number;
  const yh = y[2 * j + HIGH] as number;
  if (xh !== yh) return xh < yh ? -1 : 1;
  const xl = (x[2 * i + LOW] as number) >>> 2;
  const yl = (y[2 * j + LOW] as number) >>> 2;
  return xl === yl ? 0 : xl < yl ? -1 : 1;
}

/** Takes `bytes` of content with `lines` lines from the budget; false (and nothing taken) when it does not fit. */
function spend(budget: LineBudget, bytes: number, lines: number): boolean {
  if (bytes > budget.bytes || lines > budget.lines) {
    // Once over, nothing more is compared: the check's cost stays where the budget put it.
    budget.bytes = 0;
    budget.lines = 0;
    return false;
  }
  budget.bytes -= bytes;
  budget.lines -= lines;
  return true;
}

/** How far `x` and `y` hold the same bytes from the start, compared natively a block at a time. */
function commonPrefix(x: Uint8Array, y: Uint8Array): number {
  const limit = Math.min(x.length, y.length);
  let at = 0;
  for (let block = 65_536; at < limit; ) {
    const size = Math.min(block, limit - at);
    if (Buffer.compare(x.subarray(at, at + size), y.subarray(at, at + size)) === 0) at += size;
    else if (size > 1) block = Math.ceil(size / 2);
    else break;
  }
  return at;
}

/** How far `x` and `y` hold the same bytes from the end (within `most`). */
function commonSuffix(x: Uint8Array, y: Uint8Array, most: number): number {
  let at = 0;
  for (let block = 65_536; at < most; ) {
    const size = Math.min(block, most - at);
    if (Buffer.compare(x.subarray(x.length - at - size, x.length - at), y.subarray(y.length - at - size, y.length - at)) === 0) at += size;
    else if (size > 1) block = Math.ceil(size / 2);
    else break;
  }
  return at;
}

/**
 * `old` and `next` without the whole lines they share at the start and at the end (cut just after a
 * `\n`, which always ends a line): those lines are in both, so the multiset difference, and the bytes
 * only `next` has, are those of what is left. A one-line change in a large file compares one line.
 */
function trimShared(old: Uint8Array, next: Uint8Array): [Uint8Array, Uint8Array] {
  const prefix = commonPrefix(old, next);
  const start = prefix === 0 ? 0 : old.subarray(0, prefix).lastIndexOf(0x0a) + 1;
  const suffix = commonSuffix(old, next, Math.min(old.length, next.length) - start);
  // The shared end starts at a line's start: just after the first `\n` in it.
  const newline = old.subarray(old.length - suffix).indexOf(0x0a);
  const cut = newline === -1 ? 0 : suffix - newline - 1;
  return [old.subarray(start, old.length - cut), next.subarray(start, next.length - cut)];
}

/** A pair's lines as sorted keys (two words each), with how many lines each side has. */
interface KeyedPair {
  x: Uint32Array;
  oldLines: number;
  y: Uint32Array;
  nextLines: number;
}

/**
 * Each pair's sides as sorted keys, when all of them fit in the budget (their bytes, then their
 * lines); none (an empty list) when they do not.
 */
function keyedPairs(pairs: ReadonlyArray<readonly [Uint8Array, Uint8Array]>, budget: LineBudget): KeyedPair[] {
  if (
    !spend(
      budget,
      pairs.reduce((sum, [old, next]) => sum + old.length + next.length, 0),
      0,
    )
  )
    return [];
  const counts = pairs.map(([old, next]) => [lineCount(old), lineCount(next)] as const);
  if (
    !spend(
      budget,
      0,
      counts.reduce((sum, [old, next]) => sum + old + next, 0),
    )
  )
    return [];
  return pairs.map(([old, next], k) => {
    const [oldLines, nextLines] = counts[k] as readonly [number, number];
    return { x: new Uint32Array(sortedKeys(old, oldLines).buffer), oldLines, y: new Uint32Array(sortedKeys(next, nextLines).buffer), nextLines };
  });
}

/**
 * Lines in one side and not the other, both ways (a multiset difference), and the bytes of the
 * lines only `after` has. Past the budget: every byte of both sides as a line, and all of `after`
 * (plus a break) as added.
 */
export function lineDelta(before: Uint8Array | string, after: Uint8Array | string, budget: LineBudget = lineBudget()): LineDelta {
  const pair = trimShared(toBytes(before), toBytes(after));
  const keyed = keyedPairs([pair], budget)[0];
  if (keyed === undefined) return { lines: pair[0].length + pair[1].length, addedBytes: pair[1].length + 1, exact: false };
  const { x, oldLines, y, nextLines } = keyed;
  let lines = 0;
  let addedBytes = 0;
  let i = 0;
  let j = 0;
  while (i < oldLines || j < nextLines) {
    const order = i >= oldLines ? 1 : j >= nextLines ? -1 : compareRuns(x, i, y, j);
    const iEnd = order <= 0 ? runEnd(x, i, oldLines) : i;
    const jEnd = order >= 0 ? runEnd(y, j, nextLines) : j;
    const removed = iEnd - i - (jEnd - j);
    lines += Math.abs(removed);
    // The copies only `after` has: the last of its run (the longest breaks), so the count errs high.
    for (let k = Math.max(j, jEnd + Math.min(removed, 0)); k < jEnd && removed < 0; k += 1) addedBytes += copyBytes(y, k);
    i = iEnd;
    j = jEnd;
  }
  return { lines, addedBytes, exact: true };
}

/**
 * The bytes the versions of one path add over `before`, each line counted once per path however many
 * versions carry it (the most copies any one version adds, at the largest size a copy takes in a
 * version that adds it): what
 * a series of commits writes to the remote's history for that path, so an edit made in two commits
 * counts once, and lines a later commit removed still count. With one version it is
 * {@link lineDelta}'s `addedBytes`. Past the budget: every version whole.
 */
export function addedBytesOver(before: Uint8Array | string, versions: ReadonlyArray<Uint8Array | string>, budget: LineBudget = lineBudget()): number {
  if (versions.length === 1) return lineDelta(before, versions[0] as Uint8Array | string, budget).addedBytes;
  const base = toBytes(before);
  // Each version against the base without the lines they share at both ends: its surplus is that of what is left.
  const keyed = keyedPairs(
    versions.map((version) => trimShared(base, toBytes(version))),
    budget,
  );
  if (keyed.length === 0) return versions.reduce((sum, version) => sum + toBytes(version).length + 1, 0);
  let lists = keyed.map(({ x, oldLines, y, nextLines }) => surplusOver(x, oldLines, y, nextLines));
  // Merged in pairs, level by level: each entry is copied once per level (log2 of the versions), not once per version.
  while (lists.length > 1) {
    const merged: Surplus[] = [];
    for (let k = 0; k < lists.length; k += 2)
      merged.push(k + 1 < lists.length ? mergeSurplus(lists[k] as Surplus, lists[k + 1] as Surplus) : (lists[k] as Surplus));
    lists = merged;
  }
  /** Per line (sorted): the most copies one version adds, and the largest size of a copy. */
  const most = lists[0] as Surplus;
  let total = 0;
  for (let k = 0; k < most.count; k += 1) total += (most.extra[k] as number) * (most.size[k] as number);
  return total;
}

/** Lines (one key each, sorted) with how many copies more than the base a version holds, and their largest size. */
interface Surplus {
  count: number;
  /** Two words per line, as in the keys. */
  words: Uint32Array;
  extra: Uint32Array;
  size: Uint32Array;
}

function surplusOver(base: Uint32Array, baseCount: number, version: Uint32Array, count: number): Surplus {
  const out: Surplus = { count: 0, words: new Uint32Array(2 * count), extra: new Uint32Array(count), size: new Uint32Array(count) };
  let i = 0;
  for (let j = 0; j < count; ) {
    while (i < baseCount && compareRuns(base, i, version, j) < 0) i = runEnd(base, i, baseCount);
    const iEnd = i < baseCount && compareRuns(base, i, version, j) === 0 ? runEnd(base, i, baseCount) : i;
    const jEnd = runEnd(version, j, count);
    if (jEnd - j > iEnd - i) {
      const k = out.count;
      out.words[2 * k] = version[2 * j] as number;
      out.words[2 * k + 1] = version[2 * j + 1] as number;
      out.extra[k] = jEnd - j - (iEnd - i);
      out.size[k] = copyBytes(version, jEnd - 1);
      out.count += 1;
    }
    i = iEnd;
    j = jEnd;
  }
  return out;
}

function mergeSurplus(x: Surplus, y: Surplus): Surplus {
  const capacity = x.count + y.count;
  const out: Surplus = { count: 0, words: new Uint32Array(2 * capacity), extra: new Uint32Array(capacity), size: new Uint32Array(capacity) };
  let i = 0;
  let j = 0;
  while (i < x.count || j < y.count) {
    const order = i >= x.count ? 1 : j >= y.count ? -1 : compareRuns(x.words, i, y.words, j);
    const from = order <= 0 ? x.words : y.words;
    const at = order <= 0 ? i : j;
    const k = out.count;
    out.words[2 * k] = from[2 * at] as number;
    out.words[2 * k + 1] = from[2 * at + 1] as number;
    out.extra[k] = Math.max(order <= 0 ? (x.extra[i] as number) : 0, order >= 0 ? (y.extra[j] as number) : 0);
    out.size[k] = Math.max(order <= 0 ? (x.size[i] as number) : 0, order >= 0 ? (y.size[j] as number) : 0);
    out.count += 1;
    if (order <= 0) i += 1;
    if (order >= 0) j += 1;
  }
  return out;
}
