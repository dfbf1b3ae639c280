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
// What should hold: the check reads quotes as picomatch does (or refuses them), so this entry, whose
// six wildcards are more than 3, is a config problem.
// Fixed: quotes are refused in protected_paths entries (compile-path-pattern.ts unsupportedSyntax).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const pattern = 'd/@(x|"[")*?(a)*?(a)*?(a)*?(a)*?(a)*?(x|"]")y';

describe("a protected path glob with a quoted bracket", () => {
  it("counts the wildcards between a quoted [ and ]: six are a config problem", () => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(`protected_paths:\n  - '${pattern}'\n`).ok).toBe(false);
  });
});
