// Sandbox.pausing ran a host file tool's check and open without any pause at all when no process of
// the job was running at that moment, so a command started meanwhile was not held back: it ran beside
// the check and the open, free to swap a directory for a symlink between them. Commands do start
// while a file tool runs: the registry runs a turn's reads together, so a Read's check and open run
// beside a parallel read-only subagent's PreToolUse hooks (repository commands in the sandbox, which
// may run the checkout's own scripts), beside another Read's hooks, and beside git_status/git_diff/
// git_log. docs/security-model.md says "No command starts while the job is paused".
//
// Suggested fix: take the pause (at least the "no command starts" part) even when nothing runs yet;
// and count a launch as the job's from before spawnBox's first await, so one that passed the pause
// check is either waited for or frozen with the rest.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxExec, detectSandbox, type Sandbox, type SandboxMode } from "../../src/workspace/index.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];

describe.each(modes)("a host file tool with nothing else of the job running (%s)", (mode) => {
  let root: string;
  let tmp: string;
  let sandbox: Sandbox;

  beforeEach(() => {
    root = tempDir(`pause-idle-${mode}`, { sandboxWritable: true });
    tmp = tempDir(`pause-idle-tmp-${mode}`, { sandboxWritable: true });
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tmp });
  });
  afterEach(async () => {
    await sandbox.dispose();
    removeDir(root);
    removeDir(tmp);
  });

  it("holds back a command started while it checks and opens, as it does when a background job runs", async () => {
    expect(sandbox.running).toBe(0);
    let entered: () => void = () => undefined;
    const inTask = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const marker = path.join(root, "ran-during-the-file-tool");

    // The file tool: its check-and-open is in progress until `held` resolves.
    const tool = sandbox.pausing!(async () => {
      entered();
      await held;
      return existsSync(marker);
    });
    await inTask;
    // A parallel read's hook (or git_status) starts a command in the job's sandbox now.
    const command = sandbox.run("touch ran-during-the-file-tool", { timeoutMs: 30_000 });
    // Give it every chance to run if nothing holds it back: until it has run, or 3 s.
    await Promise.race([command, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    release();

    expect(await tool).toBe(false);
    expect((await command).exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
