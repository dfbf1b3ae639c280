// Broken (red team of #20, fifth pass): `regexBacktrackingProblem` bounds a hook matcher's alternatives
// (their product at most 256) and, separately, its varying repetitions (at most 3), but a failing test
// tries every way of the alternatives at every split of the repetitions: the costs multiply. The
// matcher `mcp__docs__` + eight `(?:a|a)` + `.*.*.*b` (256 ways, 3 repetitions) is accepted, and on the
// canonical name of a CallMcpTool call whose `tool` is `docs__` + 245 `a` (256 characters, within the
// bound hooks match) one PreToolUse check held the Tackle process's event loop 23 s (the variant
// `…a*a*a*b` 32 s, `….*.*.*.{3}b` 52 s), every job of the process with it; the model repeats the call at
// will. Both halves are the attacker's: the repository writes the matcher, the (injected) model names the
// tool. A bound on the product (ways × length^repetitions), not on each factor, would refuse it.
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";

const ways = "(?:a|a)".repeat(8);

describe("a hook matcher whose alternatives and repetitions multiply", () => {
  it.each([`mcp__docs__${ways}.*.*.*b`, `mcp__docs__${ways}a*a*a*b`, `mcp__docs__${ways}.*.*.*.{3}b`])(
    "the matcher %s is a config error naming the key",
    (matcher) => {
      const parsed = parseRepoConfig(`hooks:\n  PreToolUse:\n    - matcher: "${matcher}"\n      command: "exit 2"\n`);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problems.join("\n")).toMatch(/hooks\.PreToolUse\[0\]\.matcher/);
    },
  );
});
