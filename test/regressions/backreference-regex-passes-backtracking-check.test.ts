// The repository's regular expressions that run in the Tackle process on text the model chooses (hook
// matchers on tool names of up to 256 characters, `blocked_commands` `/regex/` entries on Bash commands of
// up to 1,024) pass regexBacktrackingProblem, which counts repetitions whose count varies (at most three,
// or two) and refuses repeated risky groups. It does not see back-references: `(.*)(.*)\2\1y` has two `.*`,
// yet each of its n² splits compares the captured text again (and unanchored, from each of n starts), so
// it is quartic. Measured on a shared two-core machine, on a command of 1,000 `x`: `/(.*)(.*)\2\1y/` 27 s,
// `/(.*)(.*)\1{20}\2{20}y/` 35 s, per command, every job's event loop held, and the model can send such a
// command as often as it likes. As a hook matcher, `(.*)(.*)(.*)\1{30}\2{30}\3{30}y` took 0.42 s per test
// on a 241-character CallMcpTool name; twenty PreToolUse and twenty PostToolUse hooks of
// `(.*)(.*)(.*)\3\2\1y` held the loop 3.5 s in `applies` alone, before preToolUse and postToolUse match again.
//
// Expected: a back-reference (`\1`…`\9`, `\k<name>`) is a config error naming the key, as other risky
// shapes are (or it is matched in bounded time).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";

const hook = (matcher: string) => `hooks:\n  PreToolUse:\n    - matcher: '${matcher}'\n      command: "exit 2"\n`;
const blocked = (entry: string) => `blocked_commands:\n  - '/${entry}/'\n`;

describe("regular expressions with back-references", () => {
  it.each(["(.*)(.*)\\2\\1y", "(.*)(.*)\\1{20}\\2{20}y", "(?<a>.*)(.*)\\k<a>\\2y"])("the blocked_commands entry /%s/ is a config error naming it", (entry) => {
    const parsed = parseRepoConfig(blocked(entry));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toContain("blocked_commands[0]");
  });

  it.each(["(.*)(.*)(.*)\\3\\2\\1y", "(.*)(.*)(.*)\\1{30}\\2{30}\\3{30}y"])("the hook matcher %s is a config error naming it", (matcher) => {
    const parsed = parseRepoConfig(hook(matcher));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toContain("hooks.PreToolUse[0].matcher");
  });

  it("ordinary entries stay accepted", () => {
    expect(parseRepoConfig(blocked("curl.*\\|\\s*sh")).ok).toBe(true);
    expect(parseRepoConfig(hook("mcp__.*__(delete|drop)_.*")).ok).toBe(true);
  });
});
