/**
 * Broken (red team of #20, sandbox surface): with TACKLE_SANDBOX=off and Tackle running as root,
 * commands run as uid 65534, but `Write` and `Edit` run in the host process, as root. The path guard
 * checks the path (realpath) and then opens it, and only the last component is opened without
 * following a link. The job's pause is what was meant to hold the directories still in between, but
 * without bubblewrap a process that detaches itself (setsid, double fork) is re-parented to the
 * host's init, is no longer one of the job's processes, and is never paused. Such a process swaps a
 * directory of the written path with a symlink to a directory only root may enter (renameat2
 * RENAME_EXCHANGE, so the path is always one or the other): a `Write` that was checked while it
 * was a directory opens through the symlink, and root creates a file, with the model's content,
 * where uid 65534 could never write (`/etc/ld.so.preload` is root on the host).
 *
 * The descriptor's own path (/proc/self/fd) after the open is what the reader already checks; the
 * writer must not create or truncate anything the guard would not allow.
 */
import { mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
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

describe.runIf(isRoot)("TACKLE_SANDBOX=off as root, Write beside a detached process of the job", () => {
  let base: string;
  let rootOnly: string;
  let cache: RepoCache;
  let workspace: Workspace;

  const call = (name: string, input: unknown): Promise<ToolCallResult> => callTool(workspaceContext(workspace), name, input);

  beforeAll(async () => {
    base = tempDir("off-write-swap", { sandboxWritable: true });
    // As /etc is: only root writes there (and here, only root may enter).
    rootOnly = mkdtempSync(path.join(tmpdir(), "tackle-root-only-"));
    const remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
    workspace = await cache.prepare({
      jobId: "job-off-write-swap",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/off-write-swap",
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

  it("never creates a file outside the worktree, whatever a detached process swaps in", async () => {
    expect((await call("Write", { file_path: "swap.pl", content: SWAPPER })).is_error).not.toBe(true);
    const started = await call("Bash", {
      command: `mkdir d && ln -s ${rootOnly} dd && { setsid perl swap.pl </dev/null >/dev/null 2>&1 & } && until [ -s swapper.pid ]; do :; done; echo SWAPPING`,
    });
    expect(started.content).toContain("SWAPPING");
    // The swapper outlives the command: it is no longer one of the job's processes.
    expect(statSync(path.join(workspace.root, "swapper.pid")).size).toBeGreaterThan(0);

    let written = 0;
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const result = await call("Write", { file_path: `d/payload-${attempt}`, content: "/tmp/evil.so\n" });
      if (result.is_error !== true) written += 1;
      expect(readdirSync(rootOnly)).toEqual([]);
    }
    // Writes that met the directory still land in the worktree.
    expect(written).toBeGreaterThan(0);
  });
});
