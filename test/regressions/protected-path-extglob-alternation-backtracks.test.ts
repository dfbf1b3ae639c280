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
// What should hold: a repeated extglob (`+(…)`, `*(…)`) holding an alternation (or a repetition) is a
// config problem, as `(a|aa)+` is for blocked_commands and hook matchers.
// Fixed: a repeated extglob may only hold fixed texts starting with different characters
// (src/util/compile-path-pattern.ts repeatedGroupProblem); anything else is a config problem naming the group.
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const config = (pattern: string) => `protected_paths:\n  - "${pattern}"\n`;

describe("a protected path glob repeating an alternation", () => {
  it.each(["+([a]|aa)x", "secrets/+([a]|aa).key", "+(a|[a]a)x", "*([a]|aa)x"])("the pattern %s is a config problem", (pattern) => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(config(pattern)).ok).toBe(false);
  });

  it("the pattern is a real matcher (it protects the paths it names)", () => {
    const compiled = compilePathPattern("+([a]|aa)x");
    if (compiled.ok) expect(compiled.pattern.test("src/aaax")).toBe(true);
  });
});
