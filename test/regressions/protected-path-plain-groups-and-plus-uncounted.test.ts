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
// What should hold: each of these is a config problem (plain groups count their ways as `@(…)` does;
// a `+` after a group or class counts as a repeated group / wildcard, or is refused).
// Fixed: bare groups, `|` outside an extglob, `+` opening no extglob and `?` after `)`/`]`/`}` are refused (compile-path-pattern.ts unsupportedSyntax).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const config = (pattern: string) => `protected_paths:\n  - "${pattern}"\n`;

describe("a protected path glob with plain groups or a regex `+`", () => {
  it.each([`d/${"(a|aa)".repeat(40)}x`, "d/(a|aa)+@(x|[+]x)", `d/${"[a+]+".repeat(6)}x`])("the pattern %s is a config problem", (pattern) => {
    expect(compilePathPattern(pattern).ok).toBe(false);
    expect(parseRepoConfig(config(pattern)).ok).toBe(false);
  });
});
