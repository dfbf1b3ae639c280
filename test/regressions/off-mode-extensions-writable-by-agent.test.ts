/**
 * Broken (#20, case 8): with TACKLE_SANDBOX=off and a Tackle that is not root (the Docker image's
 * uid), commands run as the owner of the "read-only" extracted agents, skills and hooks
 * (`<checkout>.extensions`): they could rewrite the default branch's hook so it allows everything,
 * move it away (a hook that cannot run does not deny), or make a skill's command their own.
 *
 * Now the host compares the folder with the files it extracted, which it keeps in memory, before
 * every command, and puts them back when a command changed them. As root the same is shown by
 * handing the folder to the commands' uid, which is what a non-root Tackle's commands are.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreTools, createPolicyEngine, createToolHooks, createToolRegistry, denyingApprovalHandler } from "../../src/agent/tools/index.js";
import type { ToolCallResult } from "../../src/agent/tools/tool.js";
import { loadRepoExtensions } from "../../src/worker/load-repo-extensions.js";
import { createRepoCache, type RepoCache, type Workspace } from "../../src/workspace/index.js";
import { git, isRoot, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { workspaceContext } from "../unit/tools/helpers.js";

const DENY_RM = "#!/bin/bash\nif grep -q 'rm -rf'; then echo 'default branch hook: no rm -rf' >&2; exit 2; fi\nexit 0\n";
const SKILL_MD = [
  "---",
  "name: x",
  "description: Says who it is.",
  "tools:",
  "  - name: who",
  "    description: Says who it is.",
  "    command: run.sh",
  "---",
  "The default branch's instructions.",
  "",
].join("\n");
const RUN_SH = "#!/bin/sh\necho 'the default branch skill'\n";

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

describe("without a sandbox, commands that own the extracted agents, skills and hooks", () => {
  let base: string;
  let cache: RepoCache;
  let workspace: Workspace;
  let dir: string;

  const bash = async (command: string): Promise<ToolCallResult> => {
    const hooks = createToolHooks({
      PreToolUse: [{ matcher: "Bash", command: '"$TACKLE_HOOKS_DIR/deny-rm.sh"' }],
      PostToolUse: [],
      hooksDir: path.join(dir, ".tackle/hooks"),
    });
    const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler, hooks });
    const context = workspaceContext(workspace);
    const [result] = await registry.runCalls([{ id: "c1", name: "Bash", input: { command } }], context);
    if (result === undefined) throw new Error("no result");
    return result;
  };

  beforeAll(async () => {
    base = tempDir("off-extensions", { sandboxWritable: true });
    const remote = await makeRemote(base);
    for (const [file, content] of Object.entries({
      ".tackle/hooks/deny-rm.sh": DENY_RM,
      ".tackle/skills/x/SKILL.md": SKILL_MD,
      ".tackle/skills/x/run.sh": RUN_SH,
    })) {
      mkdirSync(path.dirname(path.join(remote.work, file)), { recursive: true });
      writeFileSync(path.join(remote.work, file), content, { mode: file.endsWith(".sh") ? 0o755 : 0o644 });
    }
    await git(remote.work, ["add", "-A"]);
    await git(remote.work, ["commit", "--quiet", "-m", "hooks and skills"]);
    await git(remote.work, ["push", "--quiet", "origin", "main"]);
    cache = createRepoCache({ home: path.join(base, "home") });
    workspace = await cache.prepare({
      jobId: "job-off-extensions",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/off-extensions",
      branch: "tackle/issue-1",
      baseBranch: "main",
      startFrom: "base",
      allowedPushBranches: ["tackle/issue-1"],
      sandbox: "off",
    });
    dir = workspace.extensionFiles!.dir;
    // A non-root Tackle's commands run as the files' owner; as root, hand them the folder to be the same.
    if (isRoot) await execa("chown", ["-R", "65534:65534", dir]);
  });

  afterAll(async () => {
    await workspace?.dispose();
    removeDir(base);
  });

  it("find the default branch's hook and skill again at the next command, whatever they changed", async () => {
    const hook = path.join(dir, ".tackle/hooks/deny-rm.sh");
    const skill = path.join(dir, ".tackle/skills/x");
    const attack = [
      `chmod 0777 ${shellQuote(skill)} ${shellQuote(`${skill}/run.sh`)} ${shellQuote(path.dirname(hook))} ${shellQuote(hook)} && echo CHMODDED`,
      `printf '#!/bin/sh\\necho PWNED\\n' > ${shellQuote(`${skill}/run.sh`)} && echo REWROTE-SKILL`,
      `rm -f ${shellQuote(`${skill}/SKILL.md`)} && ln -s /etc/passwd ${shellQuote(`${skill}/SKILL.md`)} && echo LINKED`,
      `mkfifo ${shellQuote(`${skill}/fifo`)} && echo FIFO`,
      `printf '#!/bin/sh\\nexit 0\\n' > ${shellQuote(hook)} && echo REWROTE-HOOK`,
      `mv ${shellQuote(path.dirname(hook))} ${shellQuote(`${path.dirname(hook)}.gone`)} && echo MOVED`,
      "echo end",
    ].join("; ");
    const attacked = await bash(attack);
    expect(attacked.content).toContain("end");
    // The commands own the folder here: the attack itself works (see the test's header)…
    expect(attacked.content).toContain("REWROTE-SKILL");

    // …but the next command's hook is the default branch's, and denies.
    await execa("mkdir", ["-p", path.join(workspace.root, "build")]);
    const denied = await bash("rm -rf build");
    expect(denied).toMatchObject({ is_error: true, content: "Denied by a PreToolUse hook: default branch hook: no rm -rf" });
    expect(existsSync(path.join(workspace.root, "build"))).toBe(true);

    // The skill's command is the default branch's, and so is everything in the folder.
    const extensions = await loadRepoExtensions(workspace.extensionFiles, ["Bash"]);
    const run = await workspace.exec.run(shellQuote(extensions.skills[0]!.tools[0]!.command), { timeoutMs: 30_000 });
    expect(run.output).toContain("the default branch skill");
    expect(run.output).not.toContain("PWNED");
    expect(readFileSync(hook, "utf8")).toBe(DENY_RM);
    expect(readFileSync(`${skill}/run.sh`, "utf8")).toBe(RUN_SH);
    expect(readFileSync(`${skill}/SKILL.md`, "utf8")).toBe(SKILL_MD);
    expect(readdirSync(skill).sort()).toEqual(["SKILL.md", "run.sh"]);
    expect(readdirSync(dir)).toEqual([".tackle"]);
    expect(
      execFileSync("stat", ["-c", "%a", `${skill}/run.sh`, skill], { encoding: "utf8" })
        .split("\n")
        .slice(0, 2),
    ).toEqual(["555", "755"]);
  });
});
