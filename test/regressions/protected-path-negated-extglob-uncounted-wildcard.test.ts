// Broken (red team of #20, seventh pass, protected_paths globs): `backtrackingProblem` allows at most
// three wildcards of varying width and counts `*`, `**`, `*(…)` and `+(…)`, but not `!(…)`, which
// picomatch compiles to `(?:(?!(?:x))[^/]*?)`: a lazy star of its own. `d/!(x)!(x)!(x)!(x)!(x)!(x)y`
// is six stars over one name and `parseRepoConfig` accepts it; a name that does not end in `y` tries
// every split, O(n⁶). Measured on this two-core machine: `d/` + 80 a's 0.23 s, 120 a's 2.6 s; a
// 255-character name (the longest Linux allows) would take minutes on the Tackle event loop.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: `!(…)` counts as a wildcard of varying width, so six of them are a config problem.
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob of negated extglobs", () => {
  it.each([
    ["d/!(x)!(x)!(x)!(x)!(x)!(x)y", `d/${"a".repeat(250)}`, false],
    ["d/!(x)!(x)!(x)!(x)!(x)!(x)y", `d/${"a".repeat(249)}y`, true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
