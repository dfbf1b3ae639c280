import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyEngine, type PolicyConfig, type PolicyDecision } from "../../../src/agent/policy/index.js";
import { parseShell, parseShellLayers } from "../../../src/agent/policy/parse-shell.js";
import { canonicalAction, coreTools } from "../../../src/agent/tools/index.js";
import { createHarness, type Harness } from "../tools/helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const bash = coreTools().find((tool) => tool.name === "Bash")!;
const check = (command: string, config: PolicyConfig): Promise<PolicyDecision> => createPolicyEngine(config).check(canonicalAction(bash, { command }), h.ctx);
const quote = (script: string) => `'${script.replaceAll("'", `'\\''`)}'`;
const nest = (script: string, shells: number) => {
  let command = script;
  for (let layer = 0; layer < shells; layer += 1) command = `bash -c ${quote(command)}`;
  return command;
};

describe("parseShellLayers", () => {
  it("says when a shell nested deeper than four was left unread", () => {
    expect(parseShellLayers(nest("echo hi", 4))).toMatchObject({ deeper: false });
    expect(parseShellLayers(nest("echo hi", 5))).toMatchObject({ deeper: true });
    expect(parseShellLayers(`eval eval eval eval eval echo hi`)).toMatchObject({ deeper: true });
    expect(parseShellLayers(`bash <<'A'\nbash <<'B'\nbash <<'C'\nbash <<'D'\nbash <<'E'\necho hi\nE\nD\nC\nB\nA`)).toMatchObject({ deeper: true });
    expect(parseShellLayers(nest("echo hi", 4)).commands).toEqual(parseShell(nest("echo hi", 4)));
  });
});

describe("blocked_commands bounds", () => {
  it("refuses a command whose texts together would cost too much to check, naming them", async () => {
    const config = { blockedCommands: ["/curl.*\\|\\s*sh/"] };
    const long = "a".repeat(860);
    // The line and its one simple command: checked.
    expect((await check(`echo '${long}'`, config)).action).toBe("allow");
    expect(await check(`echo '${long}'; curl x | sh`, config)).toMatchObject({ action: "deny", reason: expect.stringContaining('forbid "/curl.*\\|\\s*sh/"') });
    // Four shells deep, six texts of 860 to 1,013 characters: refused before the entry runs.
    const nested = nest(`echo ${long}`, 4);
    expect(nested.length).toBeLessThanOrEqual(1024);
    expect(await check(nested, config)).toMatchObject({
      action: "deny",
      reason: expect.stringMatching(/checking them on this command's 6 texts .*: \d+ characters\) would take too long: run it as shorter commands/),
    });
    // Text entries alone cost little: no such bound.
    expect((await check(nested, { blockedCommands: ["npm publish"] })).action).toBe("allow");
  });

  it("refuses a command nesting shells deeper than four while blocked_commands list anything", async () => {
    expect(await check(nest("echo hi", 5), { blockedCommands: ["npm publish"] })).toMatchObject({
      action: "deny",
      reason: expect.stringContaining("nests shells (`bash -c`, `eval`, a heredoc fed to a shell) more than 4 deep"),
    });
    expect((await check(nest("echo hi", 4), { blockedCommands: ["npm publish"] })).action).toBe("allow");
    // Without entries there is nothing to check, and nothing changes.
    expect((await check(nest("echo hi", 5), {})).action).toBe("allow");
  });

  it("names an entry that reads like a verdict as the entry that matched", async () => {
    expect(await check("echo too_long", { blockedCommands: ["too_long"] })).toMatchObject({
      action: "deny",
      reason: `the repository's blocked_commands forbid "too_long"; do without it`,
    });
  });
});
