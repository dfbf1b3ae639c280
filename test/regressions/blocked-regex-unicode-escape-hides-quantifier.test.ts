/**
 * Broken (red team of #20, seventh pass, regex cost of blocked_commands): the scanners that bound an
 * entry's backtracking (`regexBacktrackingProblem`, `regexCostProfile`) skip an escape as two
 * characters and then look for a quantifier. Under the `u` flag (taken since the sixth pass) a code
 * point escape `\u{1}` is read as `\u` followed by the fixed count `{1}` (a count of 3 or less is not
 * even counted as a loop), and the real quantifier after it, `*`, is then consumed as a plain atom: it
 * is never counted. So `/\u{1}*\u{1}*\u{1}*\u{1}*\u{1}*\u{1}*x/u` (six varying repetitions of U+0001)
 * profiles as `{alternatives: 1, optional: 0, repeated: 0, counted: []}` (linear) and is accepted
 * (a repeated group, `/(?:\u{1}+)+x/u`, is still refused: the misread `{1}` marks it risky). The model's Bash command
 * is its own text and may hold U+0001 (JSON `"\u0001"`). Measured on this two-core machine with the
 * bare RegExp of the first entry: 25 characters 36 ms, 50: 0.46 s, 100: 46 s (O(n⁶)), far under the
 * 1,024-character cap, on the Tackle process's event loop.
 *
 * What should hold: the entry is refused, as `/.*.*.*.*.*.*x/` is.
 */
// Fixed: blocked_commands entries take no u flag (blocked-command-regex.ts BLOCKED_REGEX_FLAGS).
import { describe, expect, it } from "vitest";
import { parseBlockedCommand } from "../../src/config/blocked-command-regex.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";

const entries = [`/${"\\u{1}*".repeat(6)}x/u`];

describe("a `u`-flag code point escape before a quantifier", () => {
  it.each(entries)("blocked_commands entry %s is refused", (entry) => {
    expect(parseBlockedCommand("/.*.*.*.*.*.*x/").kind).toBe("invalid");
    expect(parseBlockedCommand(entry).kind).toBe("invalid");
  });

  it.each(entries)("%s is a config error in .github/tackle.yml", (entry) => {
    const parsed = parseRepoConfig(["blocked_commands:", `  - ${JSON.stringify(entry)}`, ""].join("\n"));
    expect(parsed.ok).toBe(false);
  });
});
