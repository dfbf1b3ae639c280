// Broken (red team of #20, seventh pass, protected_paths globs): `backtrackingProblem` allows at most
// three wildcards of varying width and counts `*`, `**`, `*(…)` and `+(…)`, but not `!(…)`, which
// picomatch compiles to `(?:(?!(?:x))[^/]*?)`: a lazy star of its own. `d/!(x)!(x)!(x)!(x)!(x)!(x)y`
// is six stars over one name and `parseRepoConfig` accepts it; a name that does not end in `y` tries
// every split, O(n⁶). Measured on this two-core machine: `d/` + 80 a's 0.23 s, 120 a's 2.6 s; a
// 255-character name (the longest Linux allows) would take minutes on the Tackle event loop.
//
// What should hold: `!(…)` counts as a wildcard of varying width, so six of them are a config problem.
// Fixed: !(…) counts as a wildcard of varying width (at most 3).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const pattern = "d/!(x)!(x)!(x)!(x)!(x)!(x)y";

describe("a protected path glob of negated extglobs", () => {
  it("counts each !(…) as a wildcard: six are a config problem", () => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(`protected_paths:\n  - "${pattern}"\n`).ok).toBe(false);
  });
});
