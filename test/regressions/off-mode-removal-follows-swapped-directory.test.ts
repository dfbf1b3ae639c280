/**
 * Broken (red team of #20, sandbox surface): with TACKLE_SANDBOX=off and Tackle running as root, a
 * process of the job that detached itself (setsid) outlives the job: the sandbox kills what it
 * started, and without bubblewrap an orphan is re-parented to the host's init. Then the host removes
 * the checkout, as root, walking by path (rm -rf), while that process swaps a directory of it with
 * a symlink to a directory only root may enter (renameat2 RENAME_EXCHANGE): root listed and deleted
 * the files there.
 *
 * Root removes a tree the agent could write without following a link, even one swapped in meanwhile:
 * every name is reached from its directory's descriptor.
 *
 * The same detached process made the removal fail in CI (1 run in ~5): it re-made `d` with 200 names
 * faster than root's rounds emptied the checkout ("something keeps writing to it"), and the checkout
 * stayed. Root now takes each directory before emptying it (owner root, mode 0700), after which the
 * job's uid adds nothing to it: the second case writes without end.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCallResult } from "../../src/agent/tools/tool.js";
import { createRepoCache, type RepoCache, type Workspace } from "../../src/workspace/index.js";
import { isRoot, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { callTool, workspaceContext } from "../unit/tools/helpers.js";

/**
 * Swaps `d` (a directory holding the victims' names) and `dd` (a symlink to the root-only directory,
 * `$ARGV[0]`), making either again when root's removal took it, until `stop` exists.
 */
const SWAPPER = [
  "use strict;",
  "open(my $p, '>', 'swapper.pid'); print $p $$; close($p);",
  // renameat2(AT_FDCWD, "d", AT_FDCWD, "dd", RENAME_EXCHANGE) on x86_64 (316) and aarch64 (276)
  "my $nr = (`uname -m` =~ /aarch64/) ? 276 : 316;",
  "my ($a, $b) = ('d', 'dd');",
  "until (-e 'stop') {",
  "  next if syscall($nr, -100, $a, -100, $b, 2) == 0;",
  "  if (!-l 'd' && !-l 'dd') { symlink($ARGV[0], -e 'd' ? 'dd' : 'd'); }",
  "  if (!-d 'd' && !-d 'dd') { my $dir = -e 'd' ? 'dd' : 'd'; mkdir($dir); for my $i (0..199) { open(my $f, '>', \"$dir/victim-$i\"); close($f); } }",
  "}",
  "",
].join("\n");

const VICTIMS = Array.from({ length: 200 }, (_, i) => `victim-${i}`);

describe.runIf(isRoot)("TACKLE_SANDBOX=off as root, the checkout removed beside a detached process of the job", () => {
  let base: string;
  let rootOnly: string;
  let cache: RepoCache;
  let workspace: Workspace;
  let swapper = 0;
  let writer = 0;

  const call = (name: string, input: unknown): Promise<ToolCallResult> => callTool(workspaceContext(workspace), name, input);

  let remote: string;
  const prepare = (jobId: string): Promise<Workspace> =>
    cache.prepare({
      jobId,
      remoteUrl: remote,
      repoKey: "github.com/acme/off-remove-swap",
      branch: "tackle/issue-1",
      baseBranch: "main",
      startFrom: "base",
      allowedPushBranches: ["tackle/issue-1"],
      sandbox: "off",
    });

  beforeAll(async () => {
    base = tempDir("off-remove-swap", { sandboxWritable: true });
    rootOnly = mkdtempSync(path.join(tmpdir(), "tackle-root-only-"));
    for (const name of VICTIMS) writeFileSync(path.join(rootOnly, name), "root's\n", { mode: 0o600 });
    remote = (await makeRemote(base)).remote;
    cache = createRepoCache({ home: path.join(base, "home") });
  });

  afterAll(() => {
    // Started by this test; it would swap on in a removed directory.
    if (swapper > 0) process.kill(swapper, "SIGKILL");
    // The writer and its three forks: one process group, led by it (setsid).
    if (writer > 0) process.kill(-writer, "SIGKILL");
    removeDir(base);
    removeDir(rootOnly);
  });

  it("deletes nothing outside the checkout, whatever a detached process swaps in", async () => {
    workspace = await prepare("job-off-remove-swap");
    expect((await call("Write", { file_path: "swap.pl", content: SWAPPER })).is_error).not.toBe(true);
    const started = await call("Bash", {
      command: `mkdir d && (cd d && touch ${VICTIMS.join(" ")}) && ln -s ${rootOnly} dd && { setsid perl swap.pl ${rootOnly} </dev/null >/dev/null 2>&1 & } && until [ -s swapper.pid ]; do :; done; echo SWAPPING`,
    });
    expect(started.content).toContain("SWAPPING");
    swapper = Number(readFileSync(path.join(workspace.root, "swapper.pid"), "utf8"));
    expect(swapper).toBeGreaterThan(0);

    const root = workspace.root;
    await workspace.dispose();
    expect(existsSync(root)).toBe(false);
    expect(readdirSync(rootOnly).sort()).toEqual([...VICTIMS].sort());
  });

  it("removes the checkout while a detached process of the job adds names to it without end", async () => {
    workspace = await prepare("job-off-remove-writer");
    const started = await call("Bash", {
      command:
        'mkdir -p a/b/c && { setsid perl -e \'open(my $p, ">", "writer.pid"); print $p $$; close($p); fork; fork; for (my $i = 0; ; $i++) { for my $d (".", "a", "a/b", "a/b/c") { open(my $f, ">", "$d/w$$-$i"); mkdir("$d/m$$-$i"); mkdir("$d/m$$-$i/n"); } }\' </dev/null >/dev/null 2>&1 & } && until [ -s writer.pid ]; do :; done; echo WRITING',
    });
    expect(started.content).toContain("WRITING");
    writer = Number(readFileSync(path.join(workspace.root, "writer.pid"), "utf8"));
    expect(writer).toBeGreaterThan(0);

    const root = workspace.root;
    await workspace.dispose();
    expect(existsSync(root)).toBe(false);
  });
});
