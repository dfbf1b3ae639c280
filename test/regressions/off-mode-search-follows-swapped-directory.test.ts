/**
 * Broken (red team of #20, sandbox surface): with TACKLE_SANDBOX=off and Tackle running as root,
 * `Grep` and `Glob` run ripgrep on the host, as root, over the worktree, which uid 65534 (the
 * commands' uid) owns. ripgrep follows no symlink it finds, but it walks by path: a directory it
 * listed as a directory and then enters by name may be a symlink by then. The job's pause would hold
 * the job's processes still, but without bubblewrap one that detached itself (setsid) is no longer one
 * of them. Swapping a directory with a symlink to a directory only root may enter (renameat2
 * RENAME_EXCHANGE) made root's ripgrep print a root-only file's lines to the model.
 *
 * A search reads no more than the commands' uid may: as root, ripgrep runs as that identity.
 */
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCallResult } from "../../src/agent/tools/tool.js";
import { createRepoCache, type RepoCache, type Workspace } from "../../src/workspace/index.js";
import { isRoot, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { callTool, workspaceContext } from "../unit/tools/helpers.js";

/** Swaps `d` (a directory) and `dd` (a symlink to the root-only directory) until `stop` exists. */
const SWAPPER = [
  "use strict;",
  "open(my $p, '>', 'swapper.pid'); print $p $$; close($p);",
  // renameat2(AT_FDCWD, "d", AT_FDCWD, "dd", RENAME_EXCHANGE) on x86_64 (316) and aarch64 (276)
  "my $nr = (`uname -m` =~ /aarch64/) ? 276 : 316;",
  "my ($a, $b) = ('d', 'dd');",
  "until (-e 'stop') { syscall($nr, -100, $a, -100, $b, 2); }",
  "",
].join("\n");

describe.runIf(isRoot)("TACKLE_SANDBOX=off as root, Grep beside a detached process of the job", () => {
  let base: string;
  let rootOnly: string;
  let cache: RepoCache;
  let workspace: Workspace;

  const call = (name: string, input: unknown): Promise<ToolCallResult> => callTool(workspaceContext(workspace), name, input);

  beforeAll(async () => {
    base = tempDir("off-grep-swap", { sandboxWritable: true });
    rootOnly = mkdtempSync(path.join(tmpdir(), "tackle-root-only-"));
    writeFileSync(path.join(rootOnly, "shadow-of-root"), "ROOT-ONLY-LINE\n", { mode: 0o600 });
    const remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
    workspace = await cache.prepare({
      jobId: "job-off-grep-swap",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/off-grep-swap",
      branch: "tackle/issue-1",
      baseBranch: "main",
      startFrom: "base",
      allowedPushBranches: ["tackle/issue-1"],
      sandbox: "off",
    });
  });

  afterAll(async () => {
    writeFileSync(path.join(workspace.root, "stop"), "");
    await workspace?.dispose();
    removeDir(base);
    removeDir(rootOnly);
  });

  it("never shows a line of a file outside the worktree, whatever a detached process swaps in", async () => {
    expect((await call("Write", { file_path: "swap.pl", content: SWAPPER })).is_error).not.toBe(true);
    const started = await call("Bash", {
      command: `mkdir d && echo decoy > d/shadow && ln -s ${rootOnly} dd && { setsid perl swap.pl </dev/null >/dev/null 2>&1 & } && until [ -s swapper.pid ]; do :; done; echo SWAPPING`,
    });
    expect(started.content).toContain("SWAPPING");
    expect(statSync(path.join(workspace.root, "swapper.pid")).size).toBeGreaterThan(0);

    let searched = 0;
    const leaked: string[] = [];
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const grep = await call("Grep", { pattern: `ROOT-ONLY|decoy|n${attempt}x`, output_mode: "content" });
      const glob = await call("Glob", { pattern: `**/{shadow*,n${attempt}x}` });
      if (grep.content.includes("decoy")) searched += 1;
      if (grep.content.includes("ROOT-ONLY")) leaked.push(`Grep: ${grep.content}`);
      if (glob.content.includes("shadow-of-root")) leaked.push(`Glob: ${glob.content}`);
    }
    expect(leaked).toEqual([]);
    // Searches that met the directory still find what is in it.
    expect(searched).toBeGreaterThan(0);
  });
});
