/**
 * Broken (red team of #20, fs surface): `Grep` runs ripgrep on the host, "no symlink following", as
 * Tackle's own user (root in the default setup: bubblewrap, Tackle as root; `runAs` is only set in
 * mode off). ripgrep follows no symlink while it walks, but it opens every ignore file it meets
 * (`.gitignore`, `.ignore`, `.rgignore`, `.git/info/exclude`) by path, and so follows a symlink
 * there. A command (or the repository itself) makes `.gitignore` a symlink, and the host's ripgrep
 * opens whatever it points to, as root, outside the worktree and outside the guarded reader:
 *
 * - a root-only file: each line of it that is not a valid glob (an unclosed `[` or `{`, a bad
 *   range, a trailing `\`) is printed on ripgrep's stderr; with a search
 *   error and no match (a path of the agent's tree over PATH_MAX: a `mkdir`/`cd` loop) ripgrep ends
 *   with exit 2 and no output, and the port's error, which the model reads, carries that stderr;
 * - a FIFO or a device: root opens it (a FIFO's waiting writer is released, a device's open has its
 *   side effects); `/dev/zero` as `.gitignore` grows ripgrep by about 500 MB a second (one line, no
 *   end), measured: 1 GB allocation failed after 2 s under a 2 GB ulimit, until the 120 s timeout.
 *
 * Measured here as root with bubblewrap: the model's Grep result held the root-only file's line
 * (`rg: ./z/.gitignore: line 2: error parsing glob '[ROOT-ONLY-unclosed': invalid range`),
 * and a root-only FIFO's waiting writer was released by root's open.
 *
 * With bubblewrap, ripgrep now runs as one of the job's processes (`SearchOptions.sandbox`): its
 * binary bound in, the commands' view, identity and limits, so an ignore file it opens by path leads
 * only where the commands could go. Grep and Glob then run without the pause (it would hold them).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCallResult } from "../../src/agent/tools/tool.js";
import { createRepoCache, type RepoCache, type Workspace } from "../../src/workspace/index.js";
import { isRoot, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { callTool, workspaceContext } from "../unit/tools/helpers.js";

/** Lines a glob parser refuses: ripgrep prints each of them back. */
const SECRET = ["plain-ROOT-ONLY-line", "[ROOT-ONLY-unclosed"].join("\n");

describe.runIf(isRoot)("Grep as root (bubblewrap), a .gitignore the agent made a symlink", () => {
  let base: string;
  let rootOnly: string;
  let cache: RepoCache;
  let workspace: Workspace;
  let writer: ChildProcess | undefined;

  const call = (name: string, input: unknown): Promise<ToolCallResult> => callTool(workspaceContext(workspace), name, input);

  beforeAll(async () => {
    base = tempDir("grep-ignore-symlink", { sandboxWritable: true });
    rootOnly = mkdtempSync(path.join(tmpdir(), "tackle-root-only-"));
    writeFileSync(path.join(rootOnly, "settings.json"), `${SECRET}\n`, { mode: 0o600 });
    await execa("mkfifo", ["-m", "0600", path.join(rootOnly, "fifo")]);
    const remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
    workspace = await cache.prepare({
      jobId: "job-grep-ignore-symlink",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/grep-ignore-symlink",
      branch: "tackle/issue-1",
      baseBranch: "main",
      startFrom: "base",
      allowedPushBranches: ["tackle/issue-1"],
      sandbox: "bwrap",
    });
  });

  afterAll(async () => {
    // Started by this test: a writer still waiting on the FIFO.
    if (writer?.pid !== undefined && writer.exitCode === null) writer.kill("SIGKILL");
    await workspace?.dispose();
    removeDir(base);
    removeDir(rootOnly);
  });

  it("shows the model no line of a root-only file a .gitignore symlink points to", async () => {
    // In the sandbox the path does not exist: the link is only followed by the host.
    const made = await call("Bash", {
      command: [
        `mkdir z && ln -s ${path.join(rootOnly, "settings.json")} z/.gitignore && touch -d 2000-01-01 z`,
        // A path over PATH_MAX: ripgrep's walk fails there (exit 2) and nothing matches, so the port reports its stderr.
        `perl -e 'mkdir "deep"; chdir "deep"; for (1..20) { my $n = "d" x 250; mkdir $n; chdir $n; } open(my $f, ">", "leaf"); close $f;'`,
        "echo MADE",
      ].join(" && "),
    });
    expect(made.content).toContain("MADE");
    const grep = await call("Grep", { pattern: "no-such-text-anywhere" });
    expect(grep.content).not.toContain("ROOT-ONLY");
  });

  it("never opens a FIFO outside the worktree that a .gitignore symlink points to", async () => {
    const fifo = path.join(rootOnly, "fifo");
    // A writer waiting for a reader: it exits 0 once something opened the FIFO for reading (and then
    // ignores SIGUSR1), 3 when SIGUSR1 finds it still waiting in its open.
    writer = spawn(
      "perl",
      ["-e", '$SIG{USR1} = sub { exit 3 }; open(my $f, ">", $ARGV[0]) or exit 4; $SIG{USR1} = "IGNORE"; print $f "x"; close($f); exit 0', fifo],
      {
        stdio: "ignore",
      },
    );
    const ended = new Promise<number | null>((resolve) => writer?.once("exit", (code) => resolve(code)));
    const made = await call("Bash", { command: `rm -rf z deep && mkdir y && ln -s ${fifo} y/.gitignore && echo MADE` });
    expect(made.content).toContain("MADE");
    const grep = await call("Grep", { pattern: "hello" });
    expect(grep.content).toContain("README.md");
    // Grep is done: ripgrep read the FIFO to its end, if it opened it, so the writer is past its open.
    writer.kill("SIGUSR1");
    const outcome = (await ended) === 3 ? "never opened" : "opened by the host";
    expect(outcome).toBe("never opened");
  });
});
