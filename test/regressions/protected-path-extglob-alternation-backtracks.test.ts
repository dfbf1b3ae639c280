// Broken (red team of #20, sixth pass, protected_paths globs): `compilePathPattern` bounds the wildcards
// of varying width (`*`, `**`, `*(…)`, `+(…)`: at most three), but not what a repeated extglob holds. An
// alternation inside `+(…)` or `*(…)` whose branches overlap is compiled by picomatch to `(?:…|…)+`,
// exponential on a name that fails: `+([a]|aa)x` (one wildcard, two with the `**/` a pattern without a
// slash starts with) becomes `(?:(?:\[a\]|[a])|aa)+x` and is accepted as a `protected_paths` entry
// (`parseRepoConfig` reports no problem; a bracket keeps picomatch from taking `+(a|aa)` as a literal).
// The Tackle process tests it against every path the model writes or publishes: measured on this
// two-core machine, `src/` + 30 a's: 12 ms, 34: 62 ms, 38: 0.7 s, 40: 1.9 s (×1.6 per character), so
// one Write of a 60-character file name holds the event loop, every job with it, for hours. Through
// the policy engine (`createPolicyEngine({ protectedPaths: ["+([a]|aa)x"] })`, a Write of `a` × 40):
// 1.4 s for one call, allowed in the end.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: a repeated extglob (`+(…)`, `*(…)`) holding an alternation (or a repetition) is a
// config problem, as `(a|aa)+` is for blocked_commands and hook matchers.
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob repeating an alternation", () => {
  it.each([
    ["+([a]|aa)x", `src/${"a".repeat(250)}`, false],
    ["secrets/+([a]|aa).key", `secrets/${"a".repeat(250)}`, false],
    ["+(a|[a]a)x", `src/${"a".repeat(250)}`, false],
    ["*([a]|aa)x", `src/${"a".repeat(249)}x`, true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
