// Broken (red team of #20, eighth pass, hook matchers): `compileHookMatcher` compiles a repository's
// matcher as `new RegExp(`^(?:${matcher})$`)` but runs `regexBacktrackingProblem` and the cost profile
// on the matcher alone. A matcher that closes the wrapper's group itself, `a|a)*(?:!`, compiles to
// `/^(?:a|a)*(?:!)$/`: the wrapper's `(?:` and the matcher's `)*` make a repeated group holding an
// alternation, which the check never sees (to it the `)` closes nothing and the `*` is a plain
// repetition). `mcp__s__a|[a]|a+)*(?:!` becomes `/^(?:mcp__s__a|[a]|a+)*(?:!)$/`, a repeated group
// holding a repetition. `parseRepoConfig` accepts both, and the matchers run in the Tackle process on
// canonical tool names partly the model's (CallMcpTool's `tool`, up to 256 characters). Measured on
// this two-core machine: the first on 30 a's and `?`: 4.4 s (doubling per character); the second on
// `mcp__s__` + 26 a's + `?`: 59 s.
//
// What should hold: the check reads the matcher as it is compiled (a `)` closing no group of the
// matcher's own is refused, or the check runs on the wrapped text), so both are config problems.
// Fixed: a matcher must compile as a regular expression by itself before it is anchored (compile-hook-matcher.ts).
import { describe, expect, it } from "vitest";
import { compileHookMatcher } from "../../src/config/compile-hook-matcher.js";
import { parseRepoConfig } from "../../src/config/index.js";

const config = (matcher: string) => ["hooks:", "  PreToolUse:", `    - matcher: '${matcher}'`, "      command: 'true'", ""].join("\n");

describe("a hook matcher closing the group it is wrapped in", () => {
  it.each(["a|a)*(?:!", "mcp__s__a|[a]|a+)*(?:!"])("the matcher %s is a config problem", (matcher) => {
    expect(compileHookMatcher(matcher).ok).toBe(false);
    expect(parseRepoConfig(config(matcher)).ok).toBe(false);
  });
});
