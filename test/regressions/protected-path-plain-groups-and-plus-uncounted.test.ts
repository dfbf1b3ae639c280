// Broken (red team of #20, eighth pass, protected_paths globs): `backtrackingProblem` counts the ways
// of `{…}`, `@(…)`, `?(…)`, `!(…)` and the wildcards `*`, `**`, `*(…)`, `+(…)`, `!(…)`, and
// `repeatedGroupProblem` looks at `*(…)`/`+(…)` only. Two picomatch constructs are neither:
//  - a plain group `(a|aa)`, which picomatch compiles to the regex group `(a|aa)` (its `|` is raw
//    alternation): `d/` + `(a|aa)`×40 + `x` is the seventh pass's `@([a]|aa)`×40 chain with the `@`
//    dropped. Measured on this two-core machine: 14.4 s on `d/` + 50 a's.
//  - a `+` right after `)` or `]`, which picomatch emits as the regex quantifier `+` (not a literal):
//    `d/(a|aa)+@(x|[+]x)` compiles to `/^(?:d\/(a|aa)+(x|[+]x))$/`, a nested quantifier with
//    overlapping alternatives (32 a's: 33 ms, ×1.6 per more character: a 255-character name is
//    beyond any wait), and `d/` + `[a+]+`×6 + `x` to six greedy repetitions over one name, O(n⁶)
//    (50 a's: 27 ms; 255: minutes). The `@(x|[+]x)` and the `+` inside `[a+]` only keep the
//    self-check's sample (`d/a+x`, `d/a+a+a+a+a+a+x`) matching.
// `parseRepoConfig` accepts all three; the Tackle process tests protected paths against every path
// the model writes or publishes, on its event loop.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: each of these is a config problem (plain groups count their ways as `@(…)` does;
// a `+` after a group or class counts as a repeated group / wildcard, or is refused).
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob with plain groups or a regex `+`", () => {
  it.each([
    [`d/${"(a|aa)".repeat(40)}x`, `d/${"a".repeat(250)}`, false],
    ["d/(a|aa)+@(x|[+]x)", `d/${"a".repeat(250)}`, false],
    ["d/(a|aa)+@(x|[+]x)", "d/(a|aa)++x", true],
    [`d/${"[a+]+".repeat(6)}x`, `d/${"a".repeat(250)}`, false],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
