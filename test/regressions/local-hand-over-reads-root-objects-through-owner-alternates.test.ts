// Broken (red team of #20, thirteenth pass, local runs as root: the hand-over): the repository's owner
// (uid 1000, asking root to run Tackle on their checkout) adds a line to their own
// `.git/objects/info/alternates` naming a root-only object directory once the run has started. The
// agent (uid 1000 in the sandbox) commits a tree naming a blob it only knows by id, with a dummy loose
// object under that id so its own `pack-objects` goes through. The host's publish repository borrows
// the owner's object directory, and root's git follows the owner's alternates from there: `index-pack
// --strict` finds the blob, the check reads it, and root's `pack-objects` copies the real root-only blob
// into the owner's repository (and into the patch). Measured: `git cat-file -p <id>` as the owner after
// the run, and the patch.
// Fixed: a local run as root whose repository's owner is not root copies HEAD's history into the
// publish repository with the owner's git (local-workspace.ts handOver, copyIn) instead of borrowing
// the owner's object directory; root's git there reads only its own files.
// What should hold: root reads nothing of the user's repository on their behalf (user-repo.ts): what
// is handed over holds only objects the agent's pack carried or the owner could already read, so a
// root-only object never reaches the owner's repository or the patch.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSandbox, openLocalWorkspace, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, isRoot, removeDir, tempDir, makeOwnedRepo } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const SECRET = "ROOT-ONLY-SECRET-LINE";

describe.skipIf(!isRoot)("a local run as root hands over only what the owner could read", () => {
  let base: string;
  let repo: string;
  let workspace: Workspace | undefined;

  const tackleHome = () => {
    mkdirSync(path.join(base, "root-home"), { mode: 0o700, recursive: true });
    return path.join(base, "root-home", "tackle");
  };
  const asOwner = (script: string) =>
    execa("setpriv", ["--reuid", "1000", "--regid", "1000", "--clear-groups", "sh", "-c", script], {
      cwd: repo,
      env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" },
      extendEnv: false,
      reject: false,
    });

  /** A root-only repository (a mirror under root's TACKLE_HOME, another user's private project) holding SECRET. */
  const rootOnlyBlob = async () => {
    const rootOnly = path.join(base, "root-only");
    mkdirSync(rootOnly, { mode: 0o700 });
    await git(rootOnly, ["init", "--quiet", "--bare", "secret.git"], base);
    const secretObjects = path.join(rootOnly, "secret.git", "objects");
    const sha = (await execa("git", ["--git-dir", path.dirname(secretObjects), "hash-object", "-w", "--stdin"], { input: `${SECRET}\n` })).stdout.trim();
    return { secretObjects, sha };
  };
  /** A local run whose agent, knowing only the id, commits a tree naming it (a dummy loose object under that id lets its pack go through). */
  const agentCommitsBlobById = async (sha: string, branch: string): Promise<Workspace> => {
    const opened = await openLocalWorkspace({ repoPath: repo, branch, home: tackleHome(), sandbox: mode });
    const dummy = [
      `mkdir -p .git/objects/${sha.slice(0, 2)}`,
      "d=$(echo dummy | git hash-object -w --stdin)",
      `cp ".git/objects/$(echo $d | cut -c1-2)/$(echo $d | cut -c3-)" .git/objects/${sha.slice(0, 2)}/${sha.slice(2)}`,
      `git update-index --add --cacheinfo 100644,${sha},stolen.txt`,
      "git commit -qm 'add a file' && echo COMMITTED",
    ].join(" && ");
    const made = await opened.exec.run(dummy, { timeoutMs: 30_000 });
    expect(made.output).toContain("COMMITTED");
    return opened;
  };

  beforeEach(async () => {
    base = tempDir("owner-alternates");
    repo = await makeOwnedRepo(base);
  });
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    removeDir(base);
  });

  it("a blob only root's objects hold, named by the agent's tree and reached through the owner's alternates, does not reach the owner", async () => {
    const { secretObjects, sha } = await rootOnlyBlob();
    expect((await asOwner(`cat ${secretObjects}/${sha.slice(0, 2)}/${sha.slice(2)}`)).exitCode).not.toBe(0);
    workspace = await agentCommitsBlobById(sha, "tackle/local-alt");
    // The owner, once the run has started: their own alternates name root's objects.
    await asOwner(`echo ${secretObjects} >> .git/objects/info/alternates`);

    await workspace.push({ verify: () => ({ action: "publish" }) }).catch(() => undefined);
    const patch = await workspace.formatPatch();
    // What the owner can now read in their own repository, without root.
    const shown = await asOwner(`git -c safe.directory='*' cat-file -p ${sha}`);
    await asOwner(`sed -i '\\|${secretObjects}|d' .git/objects/info/alternates`);
    const afterwards = await asOwner(`git -c safe.directory='*' cat-file -p ${sha}`);
    expect(afterwards.stdout).not.toContain(SECRET);
    expect(shown.stdout + patch).not.toContain(SECRET);
  });

  it("a loose object of the owner's that is a symlink to a root-only object file, planted after the start, does not reach the owner", async () => {
    const { secretObjects, sha } = await rootOnlyBlob();
    workspace = await agentCommitsBlobById(sha, "tackle/local-link");
    // The owner, once the run has started: a loose object in their own store that links to root's.
    const planted = `${sha.slice(0, 2)}/${sha.slice(2)}`;
    await asOwner(`mkdir -p .git/objects/${sha.slice(0, 2)} && ln -s ${secretObjects}/${planted} .git/objects/${planted}`);

    const refused = await workspace.push({ verify: () => ({ action: "publish" }) }).then(
      () => null,
      (error: unknown) => String(error),
    );
    const patch = await workspace.formatPatch();
    await asOwner(`rm -f .git/objects/${planted}`);
    const shown = await asOwner(`git -c safe.directory='*' cat-file -p ${sha}`);
    expect(shown.stdout + patch).not.toContain(SECRET);
    // Nothing was handed over: the commit names an object neither its pack nor HEAD's history holds.
    expect(refused).toMatch(/broken or incomplete/);
  });
});
