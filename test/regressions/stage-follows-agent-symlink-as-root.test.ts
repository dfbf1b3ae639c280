// Broken (red team of #20, eighteenth pass, the sandbox as root: the stage): when Tackle is root, every
// command's bind sources are first bind-mounted by root (`mount --bind`, the stage script of
// sandbox-plan.ts `planBwrap`) from the paths `createSandboxExec` resolved once, at the first command.
// `.git/objects/info/alternates` is one of them (`readOnlyInside`), but its parent `.git/objects/info`
// is the agent's: a command renames it away (the mount inside moves along), makes a new `info` and puts
// a relative symlink named `alternates` there. At the next command root's `mount` follows that link on
// the host to a file under a root-only (0700) directory; bubblewrap, resolving the same relative link
// inside its new root, lands on a decoy the agent made in the job's /tmp and binds root's mount over it.
// The agent (uid 1000 here, 65534 in a server job) then reads a file it could never reach on the host.
// Fixed: what root stages is pinned at the first command (a descriptor opened without following links,
// fs-util.ts › openWithoutLinks; sandbox.ts › prepare), bound through /proc/<pid>/fd/N, and the stage script
// checks each bound file is that very file (device and inode) before the command starts (sandbox-plan.ts › STAGE_SCRIPT).
// What should hold: the sandbox sees only what its identity could reach, plus the binds the host chose;
// nothing the agent writes makes root open or mount another path (bind sources are pinned, or checked
// again as real files and directories, not symlinks, before root mounts them each time).
import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSandbox, openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import { isRoot, removeDir, tempDir, makeOwnedRepo } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const SECRET = "ROOT-ONLY-DIRECTORY-SECRET";

describe.skipIf(!isRoot || !support.available)("root stages only the binds it chose", () => {
  let base: string;
  let repo: string;
  let workspace: Workspace | undefined;

  beforeEach(async () => {
    base = tempDir("stage-link");
    repo = await makeOwnedRepo(base);
  });
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    removeDir(base);
  });

  it("a symlink the agent puts where .git/objects/info/alternates was does not make root mount a root-only file into the sandbox", async () => {
    // A file anyone may read, in a directory only root may enter (as under /root or a 0700 TACKLE_HOME).
    const closed = path.join(base, "root-only");
    mkdirSync(closed, { mode: 0o700 });
    const secretFile = path.join(closed, "s.txt");
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o644 });
    const asOwner = await execa("setpriv", ["--reuid", "1000", "--regid", "1000", "--clear-groups", "cat", secretFile], { reject: false });
    expect(asOwner.stdout).not.toContain(SECRET);

    mkdirSync(path.join(base, "root-home"), { mode: 0o700 });
    workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-stage", home: path.join(base, "root-home", "tackle"), sandbox: "bwrap" });

    // The agent: a decoy at the same path in the job's /tmp, and a relative link that climbs to / from .git/objects/info.
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

    const read = await workspace.exec.run(`cat ${secretFile}`, { timeoutMs: 30_000 });
    expect(read.output).not.toContain(SECRET);
  });

  it("the descriptors pinned for the stage are held while the job runs and closed when it is disposed", async () => {
    mkdirSync(path.join(base, "root-home"), { mode: 0o700 });
    workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-pins", home: path.join(base, "root-home", "tackle"), sandbox: "bwrap" });
    expect((await workspace.exec.run("echo hi", { timeoutMs: 30_000 })).output).toContain("hi");
    const root = workspace.root;
    const pinned = () => readdirSync("/proc/self/fd").filter((fd) => (readlinkOrNull(`/proc/self/fd/${fd}`) ?? "").startsWith(root));
    expect(pinned().length).toBeGreaterThan(0);
    await workspace.dispose();
    workspace = undefined;
    expect(pinned()).toEqual([]);
  });
});

function readlinkOrNull(link: string): string | null {
  try {
    return readlinkSync(link);
  } catch {
    return null;
  }
}
