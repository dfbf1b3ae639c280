// Broken (red team of #20, ninth pass, protected_paths globs): `backtrackingProblem` reads `**` and
// skips every following `*`, counting one globstar. But `**(a)` is no globstar to picomatch: it is `*`
// followed by the extglob `*(a)`, compiled to `[^/]*?(?:a)*`, two repetitions of varying width. So
// `d/**(a)**(a)*x` is counted as three wildcards (weight 512, accepted by parseRepoConfig) while its
// regex `d\/[^/]*?(?:a)*[^/]*?(?:a)*[^/]*?x` holds five, and a name without the final `x` tries every
// split, O(n⁵). Measured on this two-core machine (shared with CI): `d/` + 120 a's 0.24 s, 160 a's
// 0.8 s, 250 a's (a name the model can create) 7.0 s on the Tackle event loop, per path tested.
// `d/**(a)*(a)**(a)x` (also accepted) took 1.3 s on 160 a's.
//
// What should hold: each `*` before an extglob's `(` counts as its own wildcard of varying width, so
// these patterns are config problems (more than three wildcards).
// Fixed: `**(a)` counts as `*` and the extglob `*(a)`, two wildcards (compile-path-pattern.ts backtrackingProblem).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const patterns = ["d/**(a)**(a)*x", "d/**(a)*(a)**(a)x"];

describe("a protected path glob whose `**` opens an extglob", () => {
  for (const pattern of patterns) {
    it(`counts the star before *(…) as a wildcard: ${pattern} is a config problem`, () => {
      expect(compilePathPattern(pattern).ok).toBe(false);
      expect(parseRepoConfig(`protected_paths:\n  - "${pattern}"\n`).ok).toBe(false);
    });
  }
});
