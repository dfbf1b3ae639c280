// Broken (red team of #20, nineteenth pass, the sandbox as root: the stage's device:inode check): the stage
// script (sandbox-plan.ts › STAGE_SCRIPT) collects "source stage/N" pairs in one string and runs
// `stat -L -c %d:%i $pairs` unquoted, so the shell splits (and glob-expands) every source. The job's home and
// /tmp are staged by their raw paths (not pinned), so when TACKLE_HOME's path holds a space `stat` is given
// the halves, prints nothing for them, the pairs slip by one, and every command fails with "a sandbox path
// moved" or a stat error: as root, no command of any job runs at all (fail closed, but unusable). A `*`, `?`
// or `[` in the path is expanded against the file system and can misalign the pairs the same way.
// Fixed: the job's home and /tmp are pinned like every other staged source, so the stage script checks only
// /proc/<pid>/fd/N paths and the stage directory (never under $TMPDIR), with globbing off (sandbox.ts › prepare).
// What should hold: a source path is one argument wherever the stage uses it; the check compares each bound
// file with its own source whatever characters the operator's paths hold.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox, openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import { git, isRoot, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();

describe.skipIf(!isRoot || !support.available)("the stage check with odd characters in TACKLE_HOME", () => {
  let base: string | undefined;
  let workspace: Workspace | undefined;
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    if (base) removeDir(base);
  });

  it("runs commands when TACKLE_HOME's path holds a space", async () => {
    base = tempDir("stage-space");
    chmodSync(base, 0o755);
    const repo = path.join(base, "project");
    mkdirSync(repo);
    await git(repo, ["init", "--quiet", "-b", "main"], base);
    writeFileSync(path.join(repo, "README.md"), "hello\n");
    await git(repo, ["add", "-A"], base);
    await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
    await execa("chown", ["-R", "1000:1000", repo]);

    workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-space", home: path.join(base, "my home", "tackle"), sandbox: "bwrap" });
    const result = await workspace.exec.run("echo STARTED", { timeoutMs: 30_000 });
    expect(result.output).toContain("STARTED");
  });
});
