// compileHookMatcher (red-policy) refuses a repository's matcher that repeats a risky group or has more
// than three *unbounded* repetitions (`*`, `+`, `{n,}`). Bounded ones were not counted at all, yet on names
// of up to 256 characters a bound is no bound: `.?` written k times then `x` (2k+1 characters, within the
// 500 allowed) tries 2^k ways on a name of k+ characters without the x: measured 23 ms at k=18, 61 ms at
// 20, 177 ms at 22, so k=60 holds the Tackle process's event loop, every job and the dashboard with it,
// for longer than anyone waits; `.{0,60}` five times took 2.3 s on 90 characters. The name is the model's:
// CallMcpTool's `tool`, a name of up to 256 characters the hooks still match.
//
// Fixed: every repetition whose count varies (`?` and `{n,m}` too, only `{n}` and `{n,n}` are fixed)
// counts against the three, in the one chokepoint, compileHookMatcher; a config error names the key.
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";

const config = (matcher: string) => `hooks:\n  PreToolUse:\n    - matcher: "${matcher}"\n      command: "exit 2"\n`;

describe("hook matchers with bounded repetitions", () => {
  it.each([`${".?".repeat(60)}x`, `mcp__${"a?".repeat(100)}a{100}`, `${".{0,60}".repeat(5)}x`, "x?y?z?w?", "a{1,9}b{2,}c?d*"])(
    "the matcher %s is a config error naming the key",
    (matcher) => {
      const parsed = parseRepoConfig(config(matcher));
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problems.join("\n")).toMatch(/hooks\.PreToolUse\[0\]\.matcher.*repetitions whose count varies/);
    },
  );

  it.each(["mcp__docs__search_v2?", "a{3}b{2,2}.*x.*y.*", "mcp__.*__(delete|drop)_.*", "Edit|Write|(Multi)?Edit"])("the matcher %s is accepted", (matcher) => {
    expect(parseRepoConfig(config(matcher)).ok).toBe(true);
  });
});
