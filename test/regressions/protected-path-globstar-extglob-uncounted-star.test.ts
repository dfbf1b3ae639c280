// Broken (red team of #20, ninth pass, protected_paths globs): `backtrackingProblem` reads `**` and
// skips every following `*`, counting one globstar. But `**(a)` is no globstar to picomatch: it is `*`
// followed by the extglob `*(a)`, compiled to `[^/]*?(?:a)*`, two repetitions of varying width. So
// `d/**(a)**(a)*x` is counted as three wildcards (weight 512, accepted by parseRepoConfig) while its
// regex `d\/[^/]*?(?:a)*[^/]*?(?:a)*[^/]*?x` holds five, and a name without the final `x` tries every
// split, O(n⁵). Measured on this two-core machine (shared with CI): `d/` + 120 a's 0.24 s, 160 a's
// 0.8 s, 250 a's (a name the model can create) 7.0 s on the Tackle event loop, per path tested.
// `d/**(a)*(a)**(a)x` (also accepted) took 1.3 s on 160 a's.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: each `*` before an extglob's `(` counts as its own wildcard of varying width, so
// these patterns are config problems (more than three wildcards).
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob whose `**` opens an extglob", () => {
  it.each([
    ["d/**(a)**(a)*x", `d/${"a".repeat(250)}`, false],
    ["d/**(a)*(a)**(a)x", `d/${"a".repeat(249)}x`, true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
