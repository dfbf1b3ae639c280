/**
 * Broken (red team of #20, sixth pass, regex cost of blocked_commands): an entry's flags are taken as
 * written (`/…/flags`), so an entry may use the `v` flag (unicodeSets). Under `v` a character class may
 * hold strings, `[\q{a|aa}]`, which V8 runs as an alternation `(?:aa|a)`. The checks that bound
 * backtracking (`regexBacktrackingProblem`, `regexCostProfile`) skip a class as one atom from `[` to
 * `]`, so `[\q{a|aa}]+` reads as one repeated class (one varying repetition, no alternation) while V8
 * runs `(?:aa|a)+`: exponential on a run of `a`s (the ways to split it into ones and twos).
 * `/[\q{a|aa}]+!/v` is accepted as a `blocked_commands` entry, and `parseRepoConfig` takes it with no
 * problem; one test of it on a Bash command of `echo` and a run of `a`s holds the Tackle process's
 * event loop: measured on this two-core machine with the bare RegExp, 20 a's 2.7 ms, 24: 7.5 ms,
 * 28: 36 ms, 32: 142 ms (about ×1.4 per `a`), so a 60-character command is hours, far under the
 * 1,024-character cap and the per-call cost budget (the profile says quadratic).
 *
 * What should hold: an entry whose class holds string alternatives (`\q{…|…}`) under a quantifier is
 * refused (or the `v` flag is not taken), as `(a|aa)+` is.
 *
 * Fixed: an entry's flags are d, g, i, m, s, u and y only (src/config/blocked-command-regex.ts BLOCKED_REGEX_FLAGS); v is a config problem naming it.
 */
import { describe, expect, it } from "vitest";
import { parseBlockedCommand } from "../../src/config/blocked-command-regex.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";

describe("a `v`-flag class holding string alternatives", () => {
  it.each(["/[\\q{a|aa}]+!/v", "/x[\\q{aa|a}]*y/v"])("blocked_commands entry %s is refused, as (a|aa)+ is", (entry) => {
    expect(parseBlockedCommand("/(a|aa)+!/").kind).toBe("invalid");
    expect(parseBlockedCommand(entry).kind).toBe("invalid");
  });

  it("is a config error in .github/tackle.yml", () => {
    const parsed = parseRepoConfig(["blocked_commands:", `  - ${JSON.stringify("/[\\q{a|aa}]+!/v")}`, ""].join("\n"));
    expect(parsed.ok).toBe(false);
  });

  it("the entry really is (aa|a)+: it matches what the alternation matches", () => {
    const parsed = parseBlockedCommand("/^[\\q{a|aa}]+!$/v");
    if (parsed.kind !== "regex") return;
    expect(parsed.regex.test("aaaa!")).toBe(true);
  });
});
