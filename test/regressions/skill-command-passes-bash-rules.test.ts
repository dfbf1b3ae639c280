// A skill's tool (`skill__<skill>__<tool>`) runs a command line in the sandbox, yet neither the shell
// rules of the policy (`blocked_commands` among them) nor a repository's `Bash` hooks saw it: they keyed
// on the effect `runs` and on the name `Bash`. Both now see the call as its canonical action
// (src/agent/tools/canonical-action.ts): `Bash` with the skill's command line.
import { access, chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyEngine, createToolHooks, createToolRegistry, denyingApprovalHandler } from "../../src/agent/tools/index.js";
import { createSkillCommandTool } from "../../src/agent/tools/skill-command.js";
import type { ToolCallResult } from "../../src/agent/tools/tool.js";
import { createHarness, type Harness } from "../unit/tools/helpers.js";

let h: Harness;
let script: string;
beforeEach(async () => {
  h = await createHarness();
  const dir = path.join(h.repo.home, "skills", "release");
  await mkdir(dir, { recursive: true });
  script = path.join(dir, "publish-release.sh");
  await writeFile(script, `#!/bin/sh\ntouch "${path.join(h.repo.root, "published")}"\necho published\n`);
  await chmod(script, 0o755);
});
afterEach(async () => {
  await h.repo.cleanup();
});

async function callSkill(options: { blockedCommands?: string[]; hook?: string }): Promise<ToolCallResult> {
  const tool = createSkillCommandTool("release", { name: "publish", description: "Publishes a release.", inputSchema: { type: "object" }, command: script });
  const hooks = createToolHooks({ PreToolUse: options.hook === undefined ? [] : [{ matcher: "Bash", command: options.hook }], PostToolUse: [] });
  const policy = createPolicyEngine({ blockedCommands: options.blockedCommands ?? [] });
  const registry = createToolRegistry([tool], { policy, approval: denyingApprovalHandler, hooks });
  const [result] = await registry.runCalls([{ id: "c1", name: "skill__release__publish", input: { version: "1.0.0" } }], h.ctx);
  return result!;
}

const published = () =>
  access(path.join(h.repo.root, "published")).then(
    () => true,
    () => false,
  );

describe("a skill's command", () => {
  it("is refused by the repository's blocked_commands, as the same command through Bash is", async () => {
    const result = await callSkill({ blockedCommands: ["publish-release"] });
    expect(result).toMatchObject({ is_error: true, content: `Denied: the repository's blocked_commands forbid "publish-release"; do without it` });
    expect(await published()).toBe(false);
  });

  it("is denied by a Bash PreToolUse hook, which reads the command line as tool_input.command", async () => {
    const hook = `if grep -q '"tool_name":"Bash","tool_input":{"command":"[^"]*publish-release.sh'; then echo 'no releases from jobs' >&2; exit 2; fi`;
    const result = await callSkill({ hook });
    expect(result).toMatchObject({ is_error: true, content: "Denied by a PreToolUse hook: no releases from jobs" });
    expect(await published()).toBe(false);
  });

  it("still runs when nothing forbids it", async () => {
    const result = await callSkill({});
    expect(result).toMatchObject({ is_error: false });
    expect(await published()).toBe(true);
  });
});
