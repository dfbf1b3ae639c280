/**
 * Broken (red team of #20, third pass, blocked_commands regexes and hook matchers): the check for
 * patterns that backtrack without bound (`regexBacktrackingProblem`) reads a character class as
 * POSIX does, where a `]` right after `[` or `[^` is a literal member. In JavaScript it closes the
 * class: `[^]` is "any character" and `[]` matches nothing. So the check skips everything up to the
 * next `]` as class members, and a nested repetition written after `[^]` and before a literal `]`
 * is never seen: `/[^]((a+)+)+]/` was accepted as a `blocked_commands` entry, and on the command
 * `x` + 20 × `a` + `!` (22 characters, far under the 1,024-character cap) one test held the Tackle
 * process's event loop 47 s (16 a's: 3.8 s; each more `a` doubles it). The same bypass passes a
 * hook `matcher` (`[^]((a+)+)+]`), which runs on tool names the model or an MCP server partly chooses.
 */
import { describe, expect, it } from "vitest";
import { parseBlockedCommand } from "../../src/config/blocked-command-regex.js";
import { compileHookMatcher } from "../../src/config/compile-hook-matcher.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";

describe("a nested repetition hidden behind `[^]` or `[]`", () => {
  it.each(["/[^]((a+)+)+]/", "/[^](a|aa)+]/", "/x|[](a+)+]/"])("blocked_commands entry %s is refused", (entry) => {
    const parsed = parseBlockedCommand(entry);
    expect(parsed.kind).toBe("invalid");
  });

  it("is a config error in .github/tackle.yml", () => {
    const parsed = parseRepoConfig(["blocked_commands:", `  - ${JSON.stringify("/[^]((a+)+)+]/")}`, ""].join("\n"));
    expect(parsed.ok).toBe(false);
  });

  it.each(["[^]((a+)+)+]", "[^](a|aa)+]"])("hook matcher %s is refused", (matcher) => {
    expect(compileHookMatcher(matcher).ok).toBe(false);
  });

  it("an ordinary class holding `]` still passes", () => {
    expect(parseBlockedCommand("/rm [\\]x]+ -rf/").kind).toBe("regex");
    expect(compileHookMatcher("mcp__[^_]+__write").ok).toBe(true);
  });
});
