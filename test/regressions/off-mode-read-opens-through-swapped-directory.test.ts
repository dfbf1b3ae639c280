/**
 * Broken (red team of #20, second pass, sandbox surface): with TACKLE_SANDBOX=off and Tackle running
 * as root, `Read`, `UploadArtifact` and the other file reads run in the host process, as root. The
 * first pass made the writer, removeTree and ripgrep walk by descriptor, but the reader still opened
 * the checked path by name, only its last component without following a link, and refused what it
 * had opened afterwards (the descriptor's /proc path). A detached process of the job (setsid, not
 * paused) that swaps a directory of the path for a symlink to a root-only directory therefore made
 * root *open* a file there: the refusal came after the open. Opening is not harmless as root: a
 * FIFO's writer is released (here a root-only FIFO, which a writer waits on, is opened by Tackle), a
 * watchdog device is armed by its open and reboots the host when closed unexpectedly, a tape rewinds.
 * The security model says root never resolves a link below the worktree, even one swapped in after
 * the check; the reader now opens each directory from the worktree's descriptor, as the writer does.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler } from "../../src/agent/tools/index.js";
import type { ToolCallResult, ToolContext } from "../../src/agent/tools/tool.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createRepoCache, type RepoCache, type Workspace } from "../../src/workspace/index.js";
import { isRoot, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { createFakeIssuePort, createFakePullsPort } from "../unit/tools/helpers.js";

const DEPTH = 400;

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

describe.runIf(isRoot)("TACKLE_SANDBOX=off as root, Read beside a detached process of the job", () => {
  let base: string;
  let rootOnly: string;
  let marks: string;
  let cache: RepoCache;
  let workspace: Workspace;

  const context = (): ToolContext => ({
    fs: workspace.fs,
    exec: workspace.exec,
    search: workspace.search,
    git: workspace.git,
    issue: createFakeIssuePort(),
    pulls: createFakePullsPort(),
    state: { todos: [], notes: [] },
    baseBranch: "main",
    signal: new AbortController().signal,
    logger: silentLogger,
  });
  const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
  const call = async (name: string, input: unknown): Promise<ToolCallResult> => {
    const [result] = await registry.runCalls([{ id: "c1", name, input }], context());
    if (result === undefined) throw new Error("no result");
    return result;
  };

  beforeAll(async () => {
    base = tempDir("off-read-swap", { sandboxWritable: true });
    rootOnly = mkdtempSync(path.join(tmpdir(), "tackle-root-only-"));
    marks = mkdtempSync(path.join(tmpdir(), "tackle-marks-"));
    const remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
    workspace = await cache.prepare({
      jobId: "job-off-read-swap",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/off-read-swap",
      branch: "tackle/issue-1",
      baseBranch: "main",
      startFrom: "base",
      allowedPushBranches: ["tackle/issue-1"],
      sandbox: "off",
    });
  });

  afterAll(async () => {
    try {
      writeFileSync(path.join(workspace.root, "a/".repeat(DEPTH), "stop"), "");
    } catch {
      // no swapper was started
    }
    await workspace?.dispose();
    removeDir(base);
    removeDir(rootOnly);
    removeDir(marks);
  });

  it("never opens a file outside the worktree, whatever a detached process swaps in", async () => {
    // A root-only FIFO and a writer waiting for a reader: it writes `opened` once anyone opens it.
    const opened = path.join(marks, "opened");
    await new Promise<void>((resolve, reject) => {
      const made = spawn("mkfifo", ["-m", "600", path.join(rootOnly, "f")]);
      made.once("error", reject);
      made.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo ${code}`))));
    });
    const writer = spawn("sh", ["-c", `exec 3>"$1" && : > "$2"`, "writer", path.join(rootOnly, "f"), opened], { stdio: "ignore" });

    // Deep below the root, so the kernel's walk to `d` in root's open takes long enough to lose the race often.
    const deep = "a/".repeat(DEPTH);
    expect((await call("Bash", { command: `mkdir -p ${deep}d` })).is_error).not.toBe(true);
    const wrote = await call("Write", { file_path: `${deep}swap.pl`, content: SWAPPER });
    expect(wrote.is_error, String(wrote.content)).not.toBe(true);
    expect((await call("Write", { file_path: `${deep}d/f`, content: "inside\n" })).is_error).not.toBe(true);
    const started = await call("Bash", {
      command: `cd ${deep} && ln -s ${rootOnly} dd && { setsid perl swap.pl </dev/null >/dev/null 2>&1 & } && until [ -s swapper.pid ]; do :; done; echo SWAPPING`,
    });
    expect(started.content).toContain("SWAPPING");

    // Reads in batches of 16 at once, as one reply's calls run, until the writer was let go or 4 000 were made.
    let read = 0;
    for (let batch = 0; batch < 250 && !existsSync(opened); batch += 1) {
      const calls = Array.from({ length: 16 }, (_, i) => ({ id: `r${batch}-${i}`, name: "Read", input: { file_path: `${deep}d/f` } }));
      for (const result of await registry.runCalls(calls, context())) if (result.is_error !== true) read += 1;
    }
    writer.kill("SIGKILL");
    expect(existsSync(opened)).toBe(false);
    expect(read).toBeGreaterThan(0);
  });
});
