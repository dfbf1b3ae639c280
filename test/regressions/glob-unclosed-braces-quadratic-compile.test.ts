/**
 * Broken (red team of #20, sixth pass, Glob on the event loop): the Glob tool's pattern is the model's,
 * of any length (`z.string().min(1)`), and is compiled in the Tackle process by `compileGlob`, whose
 * matcher is a state machine linear in path × pattern. The compile is not: each `{` looks for its
 * matching `}` to the end of the pattern (`matchingBrace`), and one that has none is then taken as a
 * literal and the scan starts again from the next `{`. A pattern of unclosed braces costs the square
 * of its length before any file is listed: measured on this two-core machine, `{` × 25,000: 0.9 s,
 * × 50,000: 5.3 s, × 100,000: 15 s, one Glob call holding the event loop (every job, webhooks, the
 * dashboard) with a 100 KB input. (Braces nested that deep overflow the stack instead: a RangeError
 * after seconds of the same scanning.)
 *
 * What should hold: compiling a glob costs time linear in its length (or a pattern past a bound is
 * refused first). Measured as a ratio, with a generous factor: four times the braces may take at most
 * eight times as long (quadratic takes sixteen), above a 50 ms floor for timer noise.
 *
 * Fixed: compileGlob finds each `{`'s `}` and each next `]` in one pass, refuses patterns over GLOB_MAX_CHARS (1,000; the tool's input schema too) and braces nested past 32.
 */
import { describe, expect, it } from "vitest";
import { compileGlob } from "../../src/util/glob-machine.js";

function timeCompile(pattern: string): number {
  const start = performance.now();
  try {
    compileGlob(pattern);
  } catch {
    // a refusal is fine: it is what bounds the work
  }
  return performance.now() - start;
}

describe("compiling the model's Glob pattern", () => {
  it("takes time linear in a pattern of unclosed braces", () => {
    const small = timeCompile("{".repeat(15_000));
    const large = timeCompile("{".repeat(60_000));
    expect(large).toBeLessThan(8 * Math.max(small, 50));
  }, 120_000);
});
