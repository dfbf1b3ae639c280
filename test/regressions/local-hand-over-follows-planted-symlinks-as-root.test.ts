/**
 * Issue #20, broken case 6: a local run as root wrote into the user's `.git` as root. The repository's
 * owner (uid 1000 here, an ordinary user asking root's cron job to run Tackle on their checkout)
 * plants symlinks in their own `.git`; root's `update-ref` and `index-pack` followed them into
 * root-owned directories (`refs/heads/tackle` -> a root directory got the branch file, then chowned
 * to the owner; `objects/pack` -> a root directory got the pack), root's reflog append followed
 * `logs/...` into a root file, and root read a `packed-refs` linked to a root-only file and printed
 * its lines into the hand-over's error (the model's tool result). The hand-over now runs as the
 * repository's owner, so the kernel applies that user's permissions.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inspect } from "node:util";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSandbox, openLocalWorkspace, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, isRoot, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const OWNER = "1000:1000";
const SECRET = "ROOT-ONLY-SECRET-LINE";

describe.skipIf(!isRoot)("a local run as root writes into another user's repository only as that user", () => {
  let base: string;
  let repo: string;
  /** Root's, as /etc/cron.daily is: nothing may appear in it. */
  let rootDir: string;
  /** Root's, as /root/.bashrc is: nothing may be appended. */
  let rootFile: string;
  /** Only root may read it. */
  let secretFile: string;
  let workspace: Workspace | undefined;

  /** TACKLE_HOME as root's usually is, under a directory only root may enter (/root/.tackle). */
  const tackleHome = () => {
    mkdirSync(path.join(base, "root-home"), { mode: 0o700, recursive: true });
    return path.join(base, "root-home", "tackle");
  };
  const userGit = (args: string[]) => git(repo, ["-c", "safe.directory=*", ...args], base);
  const asOwner = (script: string) =>
    execa("setpriv", ["--reuid", "1000", "--regid", "1000", "--clear-groups", "sh", "-c", script], {
      cwd: repo,
      env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" },
      extendEnv: false,
    });

  beforeEach(async () => {
    base = tempDir("planted-links");
    chmodSync(base, 0o755);
    repo = path.join(base, "project");
    mkdirSync(repo);
    await git(repo, ["init", "--quiet", "-b", "main"], base);
    writeFileSync(path.join(repo, "README.md"), "hello\n");
    await git(repo, ["add", "-A"], base);
    await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
    await execa("chown", ["-R", OWNER, repo]);
    rootDir = path.join(base, "cron.daily");
    mkdirSync(rootDir, { mode: 0o755 });
    rootFile = path.join(base, "bashrc");
    writeFileSync(rootFile, "root's own\n", { mode: 0o644 });
    secretFile = path.join(base, "shadow");
    writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
  });
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    removeDir(base);
  });

  /** Opens a run on `repoPath`, commits a change in the sandbox, and hands it over. */
  async function runAndHandOver(repoPath: string, branch: string, beforeHandOver?: () => Promise<unknown>): Promise<unknown> {
    workspace = await openLocalWorkspace({ repoPath, branch, home: tackleHome(), sandbox: mode });
    const made = await workspace.exec.run("echo change >> README.md && git commit -qam change && echo COMMITTED", { timeoutMs: 30_000 });
    expect(made.output).toContain("COMMITTED");
    await beforeHandOver?.();
    return workspace.push({ verify: () => ({ action: "publish" }) }).catch((error: unknown) => error);
  }

  const branchOf = (name: string) => userGit(["rev-parse", "--verify", "--quiet", `refs/heads/${name}`]).catch(() => null);

  it("refs/heads/tackle linked to a root directory: no branch file appears there", async () => {
    await asOwner(`ln -s ${rootDir} .git/refs/heads/tackle`);
    const outcome = await runAndHandOver(repo, "tackle/local-cron");
    expect(outcome).toBeInstanceOf(Error);
    expect(readdirSync(rootDir)).toEqual([]);
    expect(await branchOf("tackle/local-cron")).toBeNull();
  });

  it("objects/pack linked to a root directory: no pack is written there", async () => {
    await asOwner(`rmdir .git/objects/pack && ln -s ${rootDir} .git/objects/pack`);
    const outcome = await runAndHandOver(repo, "tackle/local-pack");
    expect(outcome).toBeInstanceOf(Error);
    expect(readdirSync(rootDir)).toEqual([]);
    expect(await branchOf("tackle/local-pack")).toBeNull();
  });

  it("the new ref's reflog linked to a root file: nothing is appended to it", async () => {
    await asOwner(`mkdir -p .git/logs/refs/heads/tackle && ln -s ${rootFile} .git/logs/refs/heads/tackle/local-log`);
    await runAndHandOver(repo, "tackle/local-log");
    expect(readFileSync(rootFile, "utf8")).toBe("root's own\n");
  });

  it("packed-refs linked to a root-only file before the run: root does not read it, its lines are in no error", async () => {
    await asOwner(`ln -s ${secretFile} .git/packed-refs`);
    const outcome = await runAndHandOver(repo, "tackle/local-packed").catch((error: unknown) => error);
    // The error and its causes, as the CLI would print them.
    expect(inspect(outcome, { depth: 10 })).not.toContain(SECRET);
  });

  it("packed-refs linked to a root-only file after the run started: its lines reach nobody", async () => {
    const outcome = await runAndHandOver(repo, "tackle/local-packed", () => asOwner(`ln -s ${secretFile} .git/packed-refs`));
    expect(outcome).toBeInstanceOf(Error);
    expect(inspect(outcome, { depth: 10 })).not.toContain(SECRET);
    expect(await workspace?.formatPatch()).not.toContain(SECRET);
  });

  it("through a linked worktree of the repository: the common dir's planted link is not followed either", async () => {
    const linked = path.join(base, "linked");
    mkdirSync(linked);
    await execa("chown", [OWNER, linked]);
    await asOwner(`git worktree add --quiet ${linked} -b side && ln -s ${rootDir} .git/refs/heads/tackle`);
    const outcome = await runAndHandOver(linked, "tackle/local-linked");
    expect(outcome).toBeInstanceOf(Error);
    expect(readdirSync(rootDir)).toEqual([]);
    expect(await branchOf("tackle/local-linked")).toBeNull();
    expect(workspace?.baseBranch).toBe("side");
  });

  it.skipIf(!support.available)("objects swapped for a link to root-only objects once the run started: the sandbox does not see them", async () => {
    const rootOnly = path.join(base, "root-only");
    mkdirSync(rootOnly, { mode: 0o700 });
    await git(rootOnly, ["init", "--quiet", "--bare", "secret.git"], base);
    const secretRepo = path.join(rootOnly, "secret.git");
    const sha = (await execa("git", ["--git-dir", secretRepo, "hash-object", "-w", "--stdin"], { input: `${SECRET}\n` })).stdout.trim();
    workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-swap", home: tackleHome(), sandbox: mode });
    // Before the first command, which binds the borrowed objects.
    await asOwner(`mv .git/objects .git/objects.real && ln -s ${secretRepo}/objects .git/objects`);
    const shown = await workspace.exec.run(`git cat-file -p ${sha}`, { timeoutMs: 30_000 }).catch((error: unknown) => ({ output: inspect(error) }));
    expect(shown.output).not.toContain(SECRET);
  });

  it("HEAD naming a blob only root's objects hold, borrowed through the owner's alternates: the checkout does not have it", async () => {
    const rootOnly = path.join(base, "root-only");
    mkdirSync(rootOnly, { mode: 0o700 });
    await git(rootOnly, ["init", "--quiet", "--bare", "secret.git"], base);
    const secretObjects = path.join(rootOnly, "secret.git", "objects");
    const sha = (await execa("git", ["--git-dir", path.dirname(secretObjects), "hash-object", "-w", "--stdin"], { input: `${SECRET}\n` })).stdout.trim();
    // What the owner can do knowing only the blob's name: a commit that names it, and alternates that lead to it.
    const commit = [
      `git update-index --add --info-only --cacheinfo 100644,${sha},secret.txt`,
      'tree=$(git write-tree --missing-ok) && git update-ref HEAD "$(echo leak | git -c user.name=o -c user.email=o@x commit-tree "$tree" -p HEAD)"',
      `echo ${secretObjects} > .git/objects/info/alternates`,
    ].join(" && ");
    await asOwner(commit);
    const opened = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-alt", home: tackleHome(), sandbox: mode }).catch((error: unknown) => error);
    if (opened instanceof Error) {
      expect(inspect(opened, { depth: 10 })).not.toContain(SECRET);
      return;
    }
    workspace = opened as Workspace;
    const shown = await workspace.exec.run(`cat secret.txt; git cat-file -p ${sha}`, { timeoutMs: 30_000 });
    expect(shown.output).not.toContain(SECRET);
  });

  it("without planted links the hand-over works, and everything it wrote is the owner's", async () => {
    const outcome = (await runAndHandOver(repo, "tackle/local-plain")) as { sha: string };
    expect(await branchOf("tackle/local-plain")).toBe(outcome.sha);
    const notOwners = await execa("find", [path.join(repo, ".git"), "!", "-uid", "1000"]);
    expect(notOwners.stdout).toBe("");
  });
});
