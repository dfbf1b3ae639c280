// Broken (red team of #20, seventh pass, protected_paths globs): the sixth pass's fix refuses a repeated
// extglob (`+(…)`, `*(…)`) whose alternatives overlap, and `backtrackingProblem` counts wildcards of
// varying width, but a CHAIN of non-repeated overlapping alternations is neither: `@([a]|aa)` written 40
// times (or the brace form `{[a],aa}` 40 times, or the range `{1..11}` 40 times, whose values include
// `1` and `11`) holds no `*`, `+(` or `*(` at all, and picomatch
// compiles it to `((?:\[a\]|[a])|aa){40}`-like text, which on a name of a's that fails tries every way
// of cutting the name into one- and two-character pieces (Fibonacci in the length). `parseRepoConfig`
// reports no problem for either entry. Measured on this two-core machine, `d/` + `@([a]|aa)`×40 + `x`
// tested on `d/` + 50 a's: 14 s; `{[a],aa}`×40 + `x`: 9.7 s; `{1..11}`×40 + `x` on 50 `1`s: 21.7 s
// (each more character ×1.6 or more); the Tackle
// process tests protected paths against every path the model writes or publishes, on its event loop.
//
// What should hold: a pattern whose alternations can split one name in more than one way (overlapping
// `@(…)`/`{…}` alternatives in sequence) is a config problem, as a repeated one already is.
// Fixed: the ways an entry's groups can match one place, multiplied, are at most 64 (compile-path-pattern.ts MAX_CHOICES).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const config = (pattern: string) => `protected_paths:\n  - "${pattern}"\n`;

describe("a protected path glob chaining overlapping alternations", () => {
  it.each([`d/${"@([a]|aa)".repeat(40)}x`, `d/${"{[a],aa}".repeat(40)}x`, `d/${"{1..11}".repeat(40)}x`])("the pattern %s is a config problem", (pattern) => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(config(pattern)).ok).toBe(false);
  });
});
