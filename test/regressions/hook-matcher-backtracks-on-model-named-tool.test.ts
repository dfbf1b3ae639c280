// Hook matchers are regular expressions the Tackle process runs on each call's canonical name, and part of
// that name is the model's (CallMcpTool's `tool`, any length) or an MCP server's (its tool names). An
// ordinary matcher such as `mcp__.*__.*_delete` takes quadratic time on a long name full of `__`: 40,000
// characters held the event loop ~6 s per test, three tests per call, and every job of the process with it
// (`mcp__.*_.*_.*z` on 5,000 characters: over 2 minutes); a repository's own matcher with a repeated
// alternation (`(a|aa)+`) is exponential on a short name. Now the hooks match names of at most 256
// characters (a longer one is denied when PreToolUse hooks exist, never matched), and a matcher that
// repeats a group holding a repetition or an alternation, or has more than 3 unbounded repetitions, is a
// config error naming its key.
import { beforeEach, afterEach, describe, expect, it } from "vitest";
import { callMcpToolTool } from "../../src/agent/tools/call-mcp-tool.js";
import { canonicalAction } from "../../src/agent/tools/canonical-action.js";
import { createToolHooks } from "../../src/agent/tools/tool-hooks.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { createHarness, type Harness } from "../unit/tools/helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("hook matchers on names the model or a server chose", () => {
  it("a CallMcpTool name of 40,000 characters is denied before any matcher runs on it", async () => {
    const hooks = createToolHooks({ PreToolUse: [{ matcher: "mcp__.*__.*_delete", command: "exit 0" }], PostToolUse: [] });
    const action = canonicalAction(callMcpToolTool, { tool: `docs${"__".repeat(20_000)}x`, arguments: {} });
    expect(hooks.applies(action.name)).toBe(true);
    const outcome = await hooks.preToolUse(action, h.ctx);
    expect(outcome.denied).toMatch(/longer than the 256 characters hooks match/);
  }, 300_000);

  it("a name within the bound is matched as before", async () => {
    const hooks = createToolHooks({ PreToolUse: [{ matcher: "mcp__.*__.*_delete", command: "echo no >&2; exit 2" }], PostToolUse: [] });
    const action = canonicalAction(callMcpToolTool, { tool: "docs__drop_delete", arguments: {} });
    expect((await hooks.preToolUse(action, h.ctx)).denied).toBe("no");
  });

  it.each(["(a|aa)+", "(a+)+", "mcp__(.*_)*x", "(Edit|Write)*", ".*a.*b.*c.*d"])("the matcher %s is a config error naming the key", (matcher) => {
    const parsed = parseRepoConfig(`hooks:\n  PreToolUse:\n    - matcher: "${matcher}"\n      command: "exit 2"\n`);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toMatch(/hooks\.PreToolUse\[0\]\.matcher.*(repeats a group|repetitions whose count varies)/);
  });

  it.each(["Bash", "Edit|Write", "(Edit|Write)", "mcp__github__.*", "mcp__.*__(delete|drop)_.*", ""])("the matcher %s is accepted", (matcher) => {
    expect(parseRepoConfig(`hooks:\n  PreToolUse:\n    - matcher: "${matcher}"\n      command: "exit 2"\n`).ok).toBe(true);
  });
});
