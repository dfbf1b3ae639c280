/**
 * Partial (red team of #20, third pass, blocked_commands regexes): the backtracking check counts
 * repetitions whose count varies (at most two), but not a backreference, whose length varies with
 * the group it repeats and whose every try compares that many characters. `/(.*).*\1x/` (two
 * counted repetitions, accepted) took 15 s on one command of 1,024 `a` (the longest a command may
 * be while regex entries exist), against 1.4 s for the allowed `/.*.*x/`; each Bash command the
 * model sends holds the Tackle process's event loop that long, for every job.
 */
import { describe, expect, it } from "vitest";
import { parseBlockedCommand } from "../../src/config/blocked-command-regex.js";

describe("a backreference counts as a repetition whose count varies", () => {
  it.each(["/(.*).*\\1x/", "/(?<a>.*).*\\k<a>x/"])("blocked_commands entry %s is refused", (entry) => {
    expect(parseBlockedCommand(entry).kind).toBe("invalid");
  });

  it("two plain repetitions still pass", () => {
    expect(parseBlockedCommand("/curl .* \\| .*sh/").kind).toBe("regex");
  });
});
