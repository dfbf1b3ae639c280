// Broken (red team of #20, eighth pass, protected_paths globs): `backtrackingProblem` reads a `[` as a
// bracket expression running to the next `]` ("one character, whatever it holds") and skips it, but
// picomatch drops double quotes and takes what they hold literally, so a quoted `"["` opens no bracket.
// In `d/@(x|"[")*?(a)*?(a)*?(a)*?(a)*?(a)*?(x|"]")y` the check skips from the quoted `[` to the quoted
// `]`: it counts no wildcard and no choice, while picomatch compiles six lazy stars and five optional
// groups over one name, `/^(?:d\/(x|\[)[^/]*?(?:a)?[^/]*?(?:a)?…[^/]*?(?:x|\])?y)$/`. `parseRepoConfig`
// accepts it (the self-check's sample `d/xy` matches). Measured on this two-core machine on `d/x` +
// n a's: 40: 0.19 s, 60: 1.7 s, 80: 10.6 s (about n⁶; a 255-character name: hours), on the Tackle
// process's event loop for every path the model writes or publishes.
//
// What should hold: the entry cannot hold the event loop. The fix of the time: the check reads quotes as picomatch does (or refuses them), so this entry, whose
// six wildcards are more than 3, is a config problem.
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("a protected path glob with a quoted bracket", () => {
  it.each([
    ['d/@(x|"[")*?(a)*?(a)*?(a)*?(a)*?(a)*?(x|"]")y', `d/x${"a".repeat(249)}`, false],
    ['d/@(x|"[")*?(a)*?(a)*?(a)*?(a)*?(a)*?(x|"]")y', 'd/"a"y', true],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
