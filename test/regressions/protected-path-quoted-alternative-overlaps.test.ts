// Broken (red team of #20, eighth pass, protected_paths globs): `repeatedGroupProblem` takes a repeated
// extglob (`+(…)`, `*(…)`) when its alternatives are fixed texts starting with different characters,
// reading a `"` as a character of the text. picomatch drops double quotes (a quoted part is literal:
// `d/"*a"x` compiles to `d\/\*ax`), so `+(a|"a")` has alternatives starting with `a` and `"` to the
// check, and compiles to `(?:a|a)+`: two identical alternatives under a repetition, 2ⁿ ways to fail on
// n a's. `d/+(a|"a")x` (and `*(…)`) passes `parseRepoConfig`; measured on this two-core machine on
// `d/` + 24 a's: 57 ms, doubling with each more character (40 a's: about an hour). The first
// alternative is the plain one so the self-check's sample (`d/ax`) matches.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: an alternative's text is what picomatch matches (quotes removed), so overlapping
// alternatives are a config problem however they are spelled.
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob repeating a quoted alternative", () => {
  it.each([
    ['d/+(a|"a")x', `d/${"a".repeat(250)}`, false],
    ['d/*(a|"a")x', `d/${"a".repeat(250)}`, false],
    ['d/+(a|"a")x', 'd/a"a"ax', true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
