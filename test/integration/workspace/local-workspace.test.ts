import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { detectSandbox, openLocalWorkspace, type SandboxMode } from "../../../src/workspace/index.js";
import { git, isRoot, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

async function makeUserRepo(base: string): Promise<string> {
  const repo = path.join(base, "project");
  mkdirSync(repo);
  await git(repo, ["init", "--quiet", "-b", "main"], base);
  await git(repo, ["config", "user.name", "Dev"], base);
  await git(repo, ["config", "user.email", "dev@example.com"], base);
  await execa("sh", ["-c", "echo 'hello' > README.md && mkdir src && echo 'let a = 1;' > src/a.js"], { cwd: repo });
  await git(repo, ["add", "-A"], base);
  await git(repo, ["commit", "--quiet", "-m", "initial"], base);
  // Uncommitted work of the user's own, which a local run must leave alone.
  await execa("sh", ["-c", "echo 'wip' >> README.md && echo draft > notes.txt"], { cwd: repo });
  return repo;
}

describe("local workspace (tackle run --local)", () => {
  let base: string;
  let repo: string;

  beforeEach(async () => {
    base = tempDir("local");
    repo = await makeUserRepo(base);
  });
  afterEach(() => removeDir(base));

  it("works in a private repository on a new branch; the hand-over adds the branch and its objects to the user's repository, their tree untouched", async () => {
    const home = path.join(base, "home");
    const headBefore = await git(repo, ["rev-parse", "HEAD"], base);
    const configBefore = readFileSync(path.join(repo, ".git", "config"), "utf8");
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-fix-a", home, sandbox: mode });
    expect(workspace.root).toBe(path.join(home, "local", "tackle-local-fix-a"));
    expect(workspace.baseBranch).toBe("main");
    expect(workspace.baseSha).toBe(headBefore);
    expect(readFileSync(path.join(workspace.root, "README.md"), "utf8")).toBe("hello\n");

    const result = await workspace.exec.run(
      [
        "id -u",
        "echo 'let a = 2;' > src/a.js && git commit -qam 'Bump a' && echo COMMITTED",
        "git diff --stat main | tail -1",
        `cat ${repo}/notes.txt && echo USER-TREE-VISIBLE`,
        `echo x > ${repo}/.git/hooks/post-commit`,
        `echo x >> ${repo}/.git/config`,
        `git --git-dir=${repo}/.git update-ref refs/heads/main HEAD`,
        "echo end",
      ].join("; "),
      { timeoutMs: 30_000 },
    );
    expect(result.output).toContain("COMMITTED");
    expect(result.output).toContain("1 file changed");
    if (isRoot) expect(result.output.split("\n")[0]).not.toBe("0");
    if (mode === "bwrap") expect(result.output).not.toContain("USER-TREE-VISIBLE");
    // Whatever the sandbox wrote there, the user's repository did not change.
    expect(existsSync(path.join(repo, ".git", "hooks", "post-commit"))).toBe(false);
    expect(readFileSync(path.join(repo, ".git", "config"), "utf8")).toBe(configBefore);
    expect(await git(repo, ["rev-parse", "main"], base)).toBe(headBefore);
    expect(await workspace.commitsAhead()).toBe(1);
    // Nothing reached the user's repository before the hand-over.
    expect(await git(repo, ["branch", "--list", "tackle/local-fix-a"], base)).toBe("");
    expect(await workspace.formatPatch()).toBe("");
    expect(await workspace.git.commit("nothing to do")).toBeNull();

    const handed = await workspace.push({ verify: () => ({ action: "publish" }) });
    expect(handed.pushed).toBe(true);
    expect(await workspace.push({ verify: () => ({ action: "publish" }) })).toEqual({ sha: handed.sha, pushed: false });
    expect(await workspace.formatPatch()).toContain("Subject: [PATCH] Bump a");

    await workspace.dispose();
    expect(existsSync(workspace.root)).toBe(false);
    expect(await git(repo, ["log", "--format=%s", "-1", "tackle/local-fix-a"], base)).toBe("Bump a");
    expect(await git(repo, ["rev-parse", "tackle/local-fix-a"], base)).toBe(handed.sha);
    expect(await git(repo, ["rev-parse", "HEAD"], base)).toBe(headBefore);
    expect(await git(repo, ["status", "--porcelain"], base)).toBe(" M README.md\n?? notes.txt");
    expect(await git(repo, ["fsck", "--no-progress"], base)).toBe("");
  });

  it("hands nothing over when the host's check refuses, and says why", async () => {
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-refused", home: path.join(base, "home"), sandbox: mode });
    try {
      await workspace.exec.run("mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml && git add -A && git commit -qm wf", {
        timeoutMs: 30_000,
      });
      const refused = await workspace
        .push({ verify: (change) => ({ action: "refuse", reason: `no: ${change.files.map((f) => f.path).join(",")}` }) })
        .catch((e: unknown) => e);
      expect(isTackleError(refused, "push_refused")).toBe(true);
      expect((refused as Error).message).toContain("no: .github/workflows/x.yml");
      expect(await git(repo, ["branch", "--list", "tackle/local-refused"], base)).toBe("");
      expect(await workspace.formatPatch()).toBe("");
    } finally {
      await workspace.dispose();
    }
  });

  it("removes the private repositories that crashed runs left behind", async () => {
    const home = path.join(base, "home");
    const crashed = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-crashed", home, sandbox: mode });
    const meta = JSON.parse(readFileSync(`${crashed.root}.json`, "utf8")) as Record<string, unknown>;
    writeFileSync(`${crashed.root}.json`, JSON.stringify({ ...meta, pid: 2 ** 22 + 3, startTime: null }));
    const next = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-next", home, sandbox: mode });
    expect(existsSync(crashed.root)).toBe(false);
    expect(existsSync(`${crashed.root}.json`)).toBe(false);
    await next.dispose();
  });

  it("refuses a branch that already exists", async () => {
    await git(repo, ["branch", "tackle/local-taken"], base);
    await expect(openLocalWorkspace({ repoPath: repo, branch: "tackle/local-taken", home: path.join(base, "home"), sandbox: mode })).rejects.toThrow(
      /already exists/,
    );
  });

  it.skipIf(!isRoot || !support.available)("as root on a user's repository: commands run as its owner, and what is handed over is the owner's", async () => {
    await execa("chown", ["-R", "1000:1000", repo]);
    // Its owner reaches it: the hand-over and every read are done as that user.
    await execa("chmod", ["755", base]);
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-owned", home: path.join(base, "home"), sandbox: "bwrap" });
    try {
      const result = await workspace.exec.run("id -u; echo change >> README.md; git commit -qam owned && echo COMMITTED", { timeoutMs: 30_000 });
      expect(result.output).toContain("1000\n");
      expect(result.output).toContain("COMMITTED");
      await workspace.push({ verify: () => ({ action: "publish" }) });
      const notOwners = await execa("find", [path.join(repo, ".git"), "!", "-uid", "1000"]);
      expect(notOwners.stdout).toBe("");
    } finally {
      await workspace.dispose();
    }
  });

  it.skipIf(!isRoot || !support.available)(
    "as root on a root-owned repository whose objects only root may read: commands run as 65534 on a private copy",
    async () => {
      await execa("chmod", ["-R", "go-rwx", path.join(repo, ".git")]);
      const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-rootrepo", home: path.join(base, "home"), sandbox: "bwrap" });
      try {
        const result = await workspace.exec.run("id -u; git log --format=%s -1; echo change >> README.md; git commit -qam mine && echo COMMITTED", {
          timeoutMs: 30_000,
        });
        expect(result.output).toContain("65534\ninitial\n");
        expect(result.output).toContain("COMMITTED");
        const { sha } = await workspace.push({ verify: () => ({ action: "publish" }) });
        expect(await git(repo, ["rev-parse", "tackle/local-rootrepo"], base)).toBe(sha);
      } finally {
        await workspace.dispose();
      }
    },
  );
});
