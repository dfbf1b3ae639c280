/**
 * Broken (found while bounding blocked_commands, #20): a hook's `matcher` from `.github/tackle.yml`
 * runs in the Tackle process on every tool name (names an MCP server partly chooses, up to 256
 * characters), and the one regex check (`regexBacktrackingProblem`, shared with `blocked_commands`)
 * let through two shapes that backtrack without bound:
 * - a chain of two-way groups, `(?:a|[a-z])` again and again: each group doubles the ways a failing
 *   test tries; 22 of them took 0.8 s on a 27-character name, and 45 fit in the 500 characters a
 *   matcher may have (days);
 * - a fixed count after repetitions, `.*.*.*[a-z]{64}x`: V8 runs the count as a loop at every split
 *   of the repetitions, 4.75 s on a 256-character name.
 *
 * The check now refuses alternatives whose branch counts multiply past 256, and counts a fixed count
 * above 3 as one more repetition whose count varies. No clock: on the code before, the test of the
 * compiled matcher below takes days, past the test's timeout; with the fix it is never compiled.
 */
import { describe, expect, it } from "vitest";
import { compileHookMatcher } from "../../src/config/compile-hook-matcher.js";
import { parseRepoConfig } from "../../src/config/index.js";

describe("a hook matcher that could backtrack without bound", () => {
  it.each([
    ["45 two-way groups", `${"(?:a|[a-z])".repeat(45)}x`, "alternatives multiply"],
    ["a fixed count after three repetitions", ".*.*.*[a-z]{64}x", "counts as one"],
  ])("is refused: %s", (_shape, matcher, reason) => {
    const compiled = compileHookMatcher(matcher);
    if (compiled.ok) {
      // What the code before did with it: the test a tool name gets.
      compiled.regex.test("a".repeat(60));
    }
    expect(compiled).toMatchObject({ ok: false, problem: expect.stringContaining(reason) });
  });

  it("is refused in the config, naming the hook", () => {
    const parsed = parseRepoConfig(`hooks:\n  PreToolUse:\n    - matcher: '${"(?:a|[a-z])".repeat(45)}x'\n      command: ./check.sh\n`);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toContain("alternatives multiply");
  });

  it("keeps the matchers people write", () => {
    for (const matcher of [
      "Edit|Write|MultiEdit",
      "mcp__github__.*",
      "(Edit|Write)",
      "a{3}b{2,2}.*x.*y.*",
      "(?:Bash|Monitor)|mcp__.*__(create|update|delete)_.*",
    ]) {
      expect(compileHookMatcher(matcher)).toMatchObject({ ok: true });
    }
  });
});
