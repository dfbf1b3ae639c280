// Broken (red team of #20, eighth pass, protected_paths globs): `repeatedGroupProblem` takes a repeated
// extglob (`+(…)`, `*(…)`) when its alternatives are fixed texts starting with different characters,
// reading a `"` as a character of the text. picomatch drops double quotes (a quoted part is literal:
// `d/"*a"x` compiles to `d\/\*ax`), so `+(a|"a")` has alternatives starting with `a` and `"` to the
// check, and compiles to `(?:a|a)+`: two identical alternatives under a repetition, 2ⁿ ways to fail on
// n a's. `d/+(a|"a")x` (and `*(…)`) passes `parseRepoConfig`; measured on this two-core machine on
// `d/` + 24 a's: 57 ms, doubling with each more character (40 a's: about an hour). The first
// alternative is the plain one so the self-check's sample (`d/ax`) matches.
//
// What should hold: an alternative's text is what picomatch matches (quotes removed), so overlapping
// alternatives are a config problem however they are spelled.
// Fixed: quotes are refused in protected_paths entries (compile-path-pattern.ts unsupportedSyntax).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const config = (pattern: string) => `protected_paths:\n  - '${pattern}'\n`;

describe("a protected path glob repeating a quoted alternative", () => {
  it.each(['d/+(a|"a")x', 'd/*(a|"a")x'])("the pattern %s is a config problem", (pattern) => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(config(pattern)).ok).toBe(false);
  });
});
