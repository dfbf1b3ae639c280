// Sandbox.pausing (freezeProcesses) judges a process stopped by the state of its main thread in
// /proc/PID/stat, and counts a zombie ('Z') as stopped. A process whose main thread has ended (raw
// SYS_exit, not exit_group) shows 'Z' there while its other threads run on: the host takes it as
// halted at once and never again looks at what its threads do (nor does a check of the main thread's
// CPU time, /proc/PID/schedstat, which stays the same). Two such processes of a background job, each
// sending SIGCONT to the other in a loop, undo every SIGSTOP the host sends them: the one stopped
// first is continued by the other before the host gets to it (here 800 sleeping processes are in the
// kill order between the two). One of them flips a directory of the checkout between itself and a
// symlink to a host directory only root can read, and the Read tool, run as the registry runs it
// (inside `pausing`), returns the host's file. Plain perl as the sandbox user, no privileges.
//
// Suggested fix: judge a process by every thread (/proc/PID/task/*/stat: all 'T'/'t', or gone) rather
// than its main thread, and never count a zombie main thread as stopped while the process has other
// threads; better, freeze the job with the cgroup v2 freezer (a cgroup per job, cgroup.freeze = 1, wait
// for "frozen 1" in cgroup.events), which covers every thread and which no SIGCONT undoes; or open
// the files as the sandbox user, openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so no race matters.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyEngine, createToolRegistry, denyingApprovalHandler, type ToolContext } from "../../src/agent/tools/index.js";
import { readTool } from "../../src/agent/tools/read.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createPathGuard, createSandboxExec, detectSandbox, type Sandbox } from "../../src/workspace/index.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode = support.available ? "bwrap" : "off";

/**
 * One of the pair: its pid goes to /tmp/NAME.pid; a thread continues the peer forever (and, given a
 * host directory, swaps `d` for a symlink to it and back); then the main thread alone ends.
 */
const PAIR = String.raw`
use strict; use threads; $| = 1;
my ($me, $peer, $outside) = @ARGV;
open(my $f, '>', "/tmp/$me.pid") or die; print $f $$; close $f;
threads->create(sub {
  my $other;
  symlink($outside, 'd.link') if $outside;
  while (1) {
    if (!$other && open(my $h, '<', "/tmp/$peer.pid")) { $other = <$h>; close $h; }
    kill 'CONT', $other if $other;
    if ($outside) { rename('d', 'd.real'); rename('d.link', 'd'); kill 'CONT', $other if $other; rename('d', 'd.link'); rename('d.real', 'd'); }
  }
})->detach;
print "up $me\n";
syscall(60, 0);
`;

describe(`the job paused for a host file tool (${mode})`, () => {
  let root: string;
  let tmp: string;
  let outside: string;
  let sandbox: Sandbox;

  beforeEach(() => {
    root = tempDir("pause-zombie", { sandboxWritable: true });
    tmp = tempDir("pause-zombie-tmp", { sandboxWritable: true });
    // A host directory the sandbox user cannot read (0700, root's): only the host can leak it.
    outside = tempDir("pause-zombie-host");
    chmodSync(outside, 0o700);
    writeFileSync(path.join(outside, "notes.txt"), "HOST-ONLY SECRET\n");
    mkdirSync(path.join(root, "d"));
    writeFileSync(path.join(root, "d", "notes.txt"), "inside the checkout\n");
    writeFileSync(path.join(root, "pair.pl"), PAIR);
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tmp });
  });
  afterEach(async () => {
    await sandbox.dispose();
    removeDir(root);
    removeDir(tmp);
    removeDir(outside);
  });

  it("stays paused while Read checks and opens, even for threads whose main thread has ended", async () => {
    let output = "";
    await sandbox.start!(["bash", "-c", `perl pair.pl a b ${outside} & for i in $(seq 800); do sleep 1000 & done; perl pair.pl b a & echo started; wait`], {
      onStdout: (chunk) => (output += chunk.toString("utf8")),
    });
    for (let i = 0; i < 4800 && !(output.includes("up a") && output.includes("up b") && output.includes("started")); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(output).toContain("started");

    const registry = createToolRegistry([readTool], { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const ctx = {
      fs: createPathGuard(root),
      exec: sandbox,
      state: { todos: [], notes: [] },
      baseBranch: "main",
      signal: new AbortController().signal,
      logger: silentLogger,
    } as unknown as ToolContext;

    const results: string[] = [];
    for (let i = 0; i < 25 && !results.some((text) => text.includes("HOST-ONLY")); i += 1) {
      // Each asks for a different limit: the registry serves a repeated read from its cache.
      const [result] = await registry.runCalls([{ id: `read-${i}`, name: "Read", input: { file_path: "d/notes.txt", limit: 100 + i } }], ctx);
      results.push(result?.content ?? "");
    }
    expect(results.filter((text) => text.includes("HOST-ONLY"))).toEqual([]);
  }, 600_000);
});
