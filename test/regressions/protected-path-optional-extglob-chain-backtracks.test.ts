// Broken (red team of #20, seventh pass, protected_paths globs): `?(…)` is not counted as a wildcard of
// varying width and not checked by `repeatedGroupProblem`, yet each is an optional group: `d/` +
// `?(a)`×30 + `a`×30 + `x` compiles to `(?:a)?{30 times}a{30}x`, the textbook `a?ⁿaⁿ` that a
// backtracking engine solves by trying the subsets of optional groups. `parseRepoConfig` reports no
// problem. Measured on this two-core machine on `d/` + a's: 40: 0.25 s, 44: 2.9 s (×~1.8 per character),
// so a Write of a 60-character name holds the Tackle process's event loop for hours.
//
// What should hold: a pattern with more optional extglobs than the wildcard limit (or optional groups
// followed by what they can also match) is a config problem.
// Fixed: each ?(…) doubles the ways an entry can match one place, at most 64 (compile-path-pattern.ts MAX_CHOICES).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const pattern = `d/${"?(a)".repeat(30)}${"a".repeat(30)}x`;

describe("a protected path glob chaining optional extglobs", () => {
  it("is a config problem", () => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(`protected_paths:\n  - "${pattern}"\n`).ok).toBe(false);
  });
});
