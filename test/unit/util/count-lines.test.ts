import { describe, expect, it } from "vitest";
import { addedBytesOver, lineBudget, lineCount, lineDelta } from "../../../src/util/count-lines.js";

/**
 * The rule written the plain way (one string and one map step per line), which count-lines.ts
 * replaced for speed: the fast one must agree with it on every input.
 */
const BREAK = /\r\n|\r|\n|\xe2\x80[\xa8\xa9]|\xc2\x85/g;
function reference(content: Buffer): Array<{ line: string; bytes: number }> {
  const text = content.toString("latin1");
  const out: Array<{ line: string; bytes: number }> = [];
  let start = 0;
  for (const match of text.matchAll(BREAK)) {
    out.push({ line: text.slice(start, match.index), bytes: match.index + match[0].length - start });
    start = match.index + match[0].length;
  }
  if (start < text.length) out.push({ line: text.slice(start), bytes: text.length - start });
  return out;
}
/** Lines exact; the bytes only `after` has between its unmatched copies at their smallest and at their largest sizes. */
function referenceDelta(before: Buffer, after: Buffer): { lines: number; addedBytes: [number, number] } {
  const remaining = new Map<string, number>();
  for (const { line } of reference(before)) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  let lines = 0;
  const unmatched = new Map<string, number>();
  for (const { line } of reference(after)) {
    const count = remaining.get(line) ?? 0;
    if (count > 0) remaining.set(line, count - 1);
    else {
      lines += 1;
      unmatched.set(line, (unmatched.get(line) ?? 0) + 1);
    }
  }
  for (const count of remaining.values()) lines += count;
  let low = 0;
  let high = 0;
  for (const [line, copies] of unmatched) {
    const sizes = reference(after)
      .filter((entry) => entry.line === line)
      .map((entry) => Math.max(entry.bytes, entry.line.length + 1))
      .sort((x, y) => x - y);
    low += sizes.slice(0, copies).reduce((sum, n) => sum + n, 0);
    high += sizes.slice(-copies).reduce((sum, n) => sum + n, 0);
  }
  return { lines, addedBytes: [low, high] };
}

/** addedBytesOver the plain way: per line, the most copies one version adds over the base, at the largest size of a copy in a version that adds it. */
function referenceOver(before: Buffer, versions: Buffer[], pick: (x: number, y: number) => number): number {
  const base = new Map<string, number>();
  for (const { line } of reference(before)) base.set(line, (base.get(line) ?? 0) + 1);
  const most = new Map<string, number>();
  const size = new Map<string, number>();
  for (const version of versions) {
    const counts = new Map<string, number>();
    for (const { line } of reference(version)) counts.set(line, (counts.get(line) ?? 0) + 1);
    for (const [line, count] of counts) {
      const extra = count - (base.get(line) ?? 0);
      if (extra > (most.get(line) ?? 0)) most.set(line, extra);
    }
    for (const { line, bytes } of reference(version)) {
      if ((counts.get(line) ?? 0) > (base.get(line) ?? 0)) {
        const own = Math.max(bytes, line.length + 1);
        size.set(line, size.has(line) ? pick(size.get(line) as number, own) : own);
      }
    }
  }
  let total = 0;
  for (const [line, extra] of most) total += extra * (size.get(line) ?? 0);
  return total;
}

/** A small deterministic generator, so a failure names its inputs. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}
const PIECES = ["a", "b", "ab", "", "\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\u2020", "é", "x".repeat(40)];
function randomText(next: () => number): Buffer {
  const parts: string[] = [];
  const length = Math.floor(next() * 60);
  for (let i = 0; i < length; i += 1) parts.push(PIECES[Math.floor(next() * PIECES.length)] as string);
  return Buffer.from(parts.join(""), "utf8");
}

describe("line counting on the host", () => {
  it("agrees with the plain rule on lines and line deltas, and its added bytes lie between the unmatched copies' smallest and largest sizes", () => {
    const next = generator(7);
    for (let round = 0; round < 2_000; round += 1) {
      const before = randomText(next);
      const after = next() < 0.3 ? Buffer.concat([before, randomText(next)]) : randomText(next);
      expect(lineCount(after), JSON.stringify(after.toString("latin1"))).toBe(reference(after).length);
      const { exact, lines, addedBytes } = lineDelta(before, after);
      const expected = referenceDelta(before, after);
      const shown = JSON.stringify([before.toString("latin1"), after.toString("latin1")]);
      expect(exact).toBe(true);
      expect(lines, shown).toBe(expected.lines);
      expect(addedBytes, shown).toBeGreaterThanOrEqual(expected.addedBytes[0]);
      expect(addedBytes, shown).toBeLessThanOrEqual(expected.addedBytes[1]);
    }
  });

  it("the bytes several versions of a path add lie between the plain rule's at the smallest and at the largest copy sizes", () => {
    const next = generator(11);
    for (let round = 0; round < 1_000; round += 1) {
      const before = randomText(next);
      const versions = Array.from({ length: 2 + Math.floor(next() * 3) }, () => (next() < 0.5 ? Buffer.concat([before, randomText(next)]) : randomText(next)));
      const shown = JSON.stringify([before, ...versions].map((b) => b.toString("latin1")));
      const bytes = addedBytesOver(before, versions);
      expect(bytes, shown).toBeGreaterThanOrEqual(referenceOver(before, versions, Math.min));
      expect(bytes, shown).toBeLessThanOrEqual(referenceOver(before, versions, Math.max));
    }
  });

  it("counts the versions of one path as the most copies any version adds, each at its largest size", () => {
    // "new" added by both versions counts once, at its larger size (five bytes with "\r\n"); "two\n" only by the second.
    expect(addedBytesOver("keep\n", ["keep\nnew\n", "keep\nnew\r\ntwo\n"])).toBe(5 + 4);
    // Two copies in one version and one in the other: two copies count.
    expect(addedBytesOver("", ["x\nx\n", "x\n"])).toBe(4);
    // With one version it is lineDelta's added bytes.
    expect(addedBytesOver("a\n", ["a\nb\nb"])).toBe(lineDelta("a\n", "a\nb\nb").addedBytes);
    // No version read (all over the file cap, counted whole by the caller): nothing added here.
    expect(addedBytesOver("a\n", [])).toBe(0);
    // A line the base already holds as often adds nothing.
    expect(addedBytesOver("a\na\n", ["a\n", "a\na\n"])).toBe(0);
  });

  it("lines both sides share at the start and the end cost nothing of the budget: a one-line change in 550,000 lines", () => {
    const before = "row of data\n".repeat(550_000);
    const after = `${"row of data\n".repeat(275_000)}changed\r\n${"row of data\n".repeat(274_999)}`;
    const budget = { bytes: 100, lines: 10 };
    expect(lineDelta(before, after, budget)).toEqual({ lines: 2, addedBytes: 9, exact: true });
    const other = `${"row of data\n".repeat(100_000)}other\n${"row of data\n".repeat(449_999)}`;
    expect(addedBytesOver(before, [after, other], budget)).toBe(9 + 6);
  });

  it("past the budget, compares nothing more and counts sizes as upper bounds", () => {
    const budget = { bytes: 10, lines: 100 };
    expect(lineDelta("a\n", "b\n", budget)).toEqual({ lines: 2, addedBytes: 2, exact: true });
    expect(budget.bytes).toBe(6);
    // 12 bytes do not fit in the 6 left: every byte counts as a line, all of the new side as added.
    expect(lineDelta("aaaaa\n", "bbbbb\n", budget)).toEqual({ lines: 12, addedBytes: 7, exact: false });
    // Once over, even a small comparison is not made, and a count is the size.
    expect(lineDelta("", "c", budget).exact).toBe(false);
    expect(lineCount("a\nb\n", budget)).toBe(4);
    expect(addedBytesOver("", ["x\n", "y\n"], budget)).toBe(6);
  });

  it("a budget of lines holds even when the bytes fit: 10 lines over a budget of 5", () => {
    const budget = { bytes: 1_000, lines: 5 };
    expect(lineDelta("", "\n".repeat(10), budget)).toEqual({ lines: 10, addedBytes: 11, exact: false });
    expect(lineBudget().lines).toBeGreaterThan(0);
  });
});
