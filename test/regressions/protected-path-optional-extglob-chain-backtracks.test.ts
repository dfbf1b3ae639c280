// Broken (red team of #20, seventh pass, protected_paths globs): `?(…)` is not counted as a wildcard of
// varying width and not checked by `repeatedGroupProblem`, yet each is an optional group: `d/` +
// `?(a)`×30 + `a`×30 + `x` compiles to `(?:a)?{30 times}a{30}x`, the textbook `a?ⁿaⁿ` that a
// backtracking engine solves by trying the subsets of optional groups. `parseRepoConfig` reports no
// problem. Measured on this two-core machine on `d/` + a's: 40: 0.25 s, 44: 2.9 s (×~1.8 per character),
// so a Write of a 60-character name holds the Tackle process's event loop for hours.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: a pattern with more optional extglobs than the wildcard limit (or optional groups
// followed by what they can also match) is a config problem.
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob chaining optional extglobs", () => {
  it.each([
    [`d/${"?(a)".repeat(30)}${"a".repeat(30)}x`, `d/${"a".repeat(250)}`, false],
    [`d/${"?(a)".repeat(30)}${"a".repeat(30)}x`, `d/${"a".repeat(50)}x`, true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
