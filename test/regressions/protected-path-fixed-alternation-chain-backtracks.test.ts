// Broken (red team of #20, seventh pass, protected_paths globs): the sixth pass's fix refuses a repeated
// extglob (`+(…)`, `*(…)`) whose alternatives overlap, and `backtrackingProblem` counts wildcards of
// varying width, but a CHAIN of non-repeated overlapping alternations is neither: `@([a]|aa)` written 40
// times (or the brace form `{[a],aa}` 40 times, or the range `{1..11}` 40 times, whose values include
// `1` and `11`) holds no `*`, `+(` or `*(` at all, and picomatch
// compiles it to `((?:\[a\]|[a])|aa){40}`-like text, which on a name of a's that fails tries every way
// of cutting the name into one- and two-character pieces (Fibonacci in the length). `parseRepoConfig`
// reports no problem for either entry. Measured on this two-core machine, `d/` + `@([a]|aa)`×40 + `x`
// tested on `d/` + 50 a's: 14 s; `{[a],aa}`×40 + `x`: 9.7 s; `{1..11}`×40 + `x` on 50 `1`s: 21.7 s
// (each more character ×1.6 or more); the Tackle
// process tests protected paths against every path the model writes or publishes, on its event loop.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: a pattern whose alternations can split one name in more than one way (overlapping
// `@(…)`/`{…}` alternatives in sequence) is a config problem, as a repeated one already is.
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob chaining overlapping alternations", () => {
  it.each([
    [`d/${"@([a]|aa)".repeat(40)}x`, `d/${"a".repeat(250)}`, false],
    [`d/${"{[a],aa}".repeat(40)}x`, `d/${"a".repeat(250)}`, false],
    [`d/${"{1..11}".repeat(40)}x`, `d/${"1".repeat(60)}x`, true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
