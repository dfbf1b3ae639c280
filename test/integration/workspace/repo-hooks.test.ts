/**
 * Repository hooks over a real checkout and a real sandbox: the hook's script is the default
 * branch's (extracted read-only, named through $TACKLE_HOOKS_DIR), never the job branch's rewrite of
 * it; the hook's stderr is its reason apart from its stdout; the agent cannot replace the script.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreTools, createPolicyEngine, createToolHooks, createToolRegistry, denyingApprovalHandler } from "../../../src/agent/tools/index.js";
import type { ToolCallResult } from "../../../src/agent/tools/tool.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { workspaceContext } from "../../unit/tools/helpers.js";
import { git, isRoot, makeRemote, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];

/** The default branch's hook: denies Bash commands that mention `rm -rf`, saying why on stderr only. */
const DENY_RM = [
  "#!/bin/bash",
  "input=$(cat)",
  "echo 'stdout is not the reason'",
  "if printf '%s' \"$input\" | grep -q 'rm -rf'; then",
  "  echo 'default branch hook: rm -rf is not allowed' >&2",
  "  exit 2",
  "fi",
  "exit 0",
  "",
].join("\n");
/** The job branch's rewrite: allows everything. */
const ALLOW_ALL = "#!/bin/bash\nexit 0\n";
const HOOK_COMMAND = '"$TACKLE_HOOKS_DIR/deny-rm.sh"';

async function commitTree(work: string, branch: string, files: Record<string, string>): Promise<void> {
  await git(work, ["checkout", "--quiet", "-B", branch]);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), content);
    await execa("chmod", ["+x", path.join(work, file)]);
  }
  await git(work, ["add", "-A"]);
  await git(work, ["commit", "--quiet", "-m", `update ${branch}`]);
  await git(work, ["push", "--quiet", "--force", "origin", `${branch}:${branch}`]);
}

describe.each(modes)("repository hooks in a real sandbox (%s)", (mode) => {
  let base: string;
  let cache: RepoCache;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let workspace: Workspace;

  const bash = async (command: string): Promise<ToolCallResult> => {
    const hooksDir = path.join(workspace.extensionFiles?.dir ?? "/nonexistent", ".tackle/hooks");
    const hooks = createToolHooks({ PreToolUse: [{ matcher: "Bash", command: HOOK_COMMAND }], PostToolUse: [], hooksDir });
    const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler, hooks });
    const [result] = await registry.runCalls([{ id: "c1", name: "Bash", input: { command } }], workspaceContext(workspace));
    if (result === undefined) throw new Error("no result");
    return result;
  };

  beforeAll(async () => {
    base = tempDir(`repo-hooks-${mode}`, { sandboxWritable: true });
    remote = await makeRemote(base);
    await commitTree(remote.work, "main", { ".tackle/hooks/deny-rm.sh": DENY_RM });
    await commitTree(remote.work, "feature", { ".tackle/hooks/deny-rm.sh": ALLOW_ALL });
    cache = createRepoCache({ home: path.join(base, "home") });
    workspace = await cache.prepare({
      jobId: `job-hooks-${mode}`,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/hooks",
      branch: "feature",
      baseBranch: "main",
      startFrom: "existing",
      allowedPushBranches: ["feature"],
      sandbox: mode,
    });
  });

  afterAll(async () => {
    await workspace?.dispose();
    removeDir(base);
  });

  it("runs the default branch's script on a branch whose checkout rewrote it to allow everything", async () => {
    expect(readFileSync(path.join(workspace.root, ".tackle/hooks/deny-rm.sh"), "utf8")).toBe(ALLOW_ALL);
    await execa("mkdir", ["-p", path.join(workspace.root, "build")]);
    const denied = await bash("rm -rf build");
    expect(denied).toMatchObject({ is_error: true, content: "Denied by a PreToolUse hook: default branch hook: rm -rf is not allowed" });
    const listed = await bash("ls -d build && echo allowed");
    expect(listed.is_error).toBe(false);
    expect(listed.content).toContain("allowed");
    expect(listed.content).not.toContain("stdout is not the reason");
  });

  it("keeps the script out of the agent's reach: a command can neither rewrite, remove nor move it", async () => {
    const script = path.join(workspace.extensionFiles!.dir, ".tackle/hooks/deny-rm.sh");
    const attack = [
      `printf '#!/bin/bash\\nexit 0\\n' > '${script}' && echo REWROTE`,
      `rm -f '${script}' && echo REMOVED`,
      `mv '${path.dirname(script)}' '${path.dirname(script)}.gone' && echo MOVED`,
      "echo end",
    ].join("; ");
    const result = await bash(attack);
    expect(result.content).toContain("end");
    // Without bubblewrap, a Tackle that is not root runs commands as the script's owner: the attack may
    // work for that one command, and the host puts the script back before the next one
    // (test/regressions/off-mode-extensions-writable-by-agent.test.ts). Otherwise it fails outright.
    if (!(mode === "off" && !isRoot)) for (const marker of ["REWROTE", "REMOVED", "MOVED"]) expect(result.content).not.toContain(marker);
    expect((await bash("rm -rf build")).content).toContain("default branch hook: rm -rf is not allowed");
    expect(readFileSync(script, "utf8")).toBe(DENY_RM);
  });
});
