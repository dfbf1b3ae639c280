// Broken (red team of #20, nineteenth pass, the sandbox as root: a local run's worktree stage): a worktree's
// sandbox (local-worktrees.ts › inputFor) binds the main checkout's `.git/objects/info/alternates` read-only
// like the main one, but its own `createSandboxExec` prepares at the worktree's first command, long after the
// agent has run in the main checkout. `prepare` (sandbox.ts) takes each source through `bindOf`, which runs
// `realpath` as root on the path before `openWithoutLinks` pins it: the agent renames `.git/objects/info`,
// plants `alternates` as a symlink to a file under a root-only directory, and root's realpath follows it; the
// resolved path has no link left, so it is pinned, staged, passes the device:inode check (it is that file),
// and bubblewrap binds it over the decoy the same relative link reaches inside the box.
// Fixed: below a writable directory, a bind source is never resolved through links (sandbox.ts ›
// writableAnchors, resolvedBind); a link there is refused when pinned, so the worktree's sandbox does not start.
// What should hold: the sandbox sees only what its identity could reach, plus the binds the host chose;
// nothing the agent writes makes root open or mount another path, in a worktree's sandbox as in the main one.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSandbox, openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import { isRoot, removeDir, tempDir, makeOwnedRepo } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const SECRET = "ROOT-ONLY-DIRECTORY-SECRET-WORKTREE";

describe.skipIf(!isRoot || !support.available)("a worktree's sandbox stages only the binds the host chose", () => {
  let base: string;
  let repo: string;
  let workspace: Workspace | undefined;

  beforeEach(async () => {
    base = tempDir("wt-stage-link");
    repo = await makeOwnedRepo(base);
  });
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    removeDir(base);
  });

  it("a symlink planted at the main checkout's .git/objects/info/alternates is not followed by root when a worktree's sandbox starts", async () => {
    const closed = path.join(base, "root-only");
    mkdirSync(closed, { mode: 0o700 });
    const secretFile = path.join(closed, "s.txt");
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o644 });
    const asOwner = await execa("setpriv", ["--reuid", "1000", "--regid", "1000", "--clear-groups", "cat", secretFile], { reject: false });
    expect(asOwner.stdout).not.toContain(SECRET);

    mkdirSync(path.join(base, "root-home"), { mode: 0o700 });
    workspace = await openLocalWorkspace({
      repoPath: repo,
      branch: "tackle/local-wt-stage",
      home: path.join(base, "root-home", "tackle"),
      sandbox: "bwrap",
      worktrees: true,
    });
    const worktrees = workspace.worktrees;
    expect(worktrees).toBeDefined();

    // A first command in the main checkout (its own stage is pinned now), then a worktree, not yet used.
    expect((await workspace.exec.run("echo hi", { timeoutMs: 30_000 })).output).toContain("hi");
    await worktrees!.port.create("aside");

    // The agent, in the main checkout: the 18th pass's plant (a decoy in the job's /tmp, a relative link).
    const plant = [
      "set -e",
      `mkdir -p ${closed} && echo decoy > ${secretFile}`,
      "info=$(cd .git/objects/info && pwd -P)",
      'ups=$(echo "$info" | tr -cd / | sed "s|/|../|g")',
      "mv .git/objects/info .git/objects/info.moved",
      "mkdir .git/objects/info",
      `ln -s "\${ups}${secretFile.slice(1)}" .git/objects/info/alternates`,
      "echo PLANTED",
    ].join("\n");
    const planted = await workspace.exec.run(plant, { timeoutMs: 30_000 });
    expect(planted.output).toContain("PLANTED");

    // The worktree's first command: its sandbox is prepared now.
    await worktrees!.port.enter("aside");
    // Refusing to start the worktree's sandbox (a link where a bind source was) is as safe as running without the file.
    const read = await worktrees!.ports.exec.run(`cat ${secretFile}; echo; echo DONE`, { timeoutMs: 30_000 }).then(
      (result) => result.output,
      (error: unknown) => String(error),
    );
    expect(read).not.toContain(SECRET);
    expect(read).toMatch(/DONE|cannot be bound into the sandbox: a link/);
  });
});
