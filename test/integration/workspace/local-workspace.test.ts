import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
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

  it("works in a worktree on a new branch; commits land in the user's repository and their tree is untouched", async () => {
    const home = path.join(base, "home");
    const headBefore = await git(repo, ["rev-parse", "HEAD"], base);
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-fix-a", home, sandbox: mode });
    expect(workspace.root).toBe(path.join(home, "local", "tackle-local-fix-a"));
    expect(workspace.baseBranch).toBe("main");
    expect(workspace.baseSha).toBe(headBefore);
    expect(readFileSync(path.join(workspace.root, "README.md"), "utf8")).toBe("hello\n");

    const result = await workspace.exec.run(
      [
        "echo 'let a = 2;' > src/a.js && git commit -qam 'Bump a' && echo COMMITTED",
        `cat ${repo}/notes.txt && echo USER-TREE-VISIBLE`,
        `echo x > ${repo}/.git/hooks/post-commit && echo HOOK-WRITTEN`,
        `echo x >> ${repo}/.git/config && echo CONFIG-WRITTEN`,
        "echo end",
      ].join("; "),
      { timeoutMs: 30_000 },
    );
    expect(result.output).toContain("COMMITTED");
    if (mode === "bwrap") {
      for (const marker of ["USER-TREE-VISIBLE", "HOOK-WRITTEN", "CONFIG-WRITTEN"]) expect(result.output).not.toContain(marker);
    }
    expect(await workspace.commitsAhead()).toBe(1);
    expect(await workspace.formatPatch()).toContain("Subject: [PATCH] Bump a");
    const sha = await workspace.git.commit("nothing to do");
    expect(sha).toBeNull();
    await expect(workspace.push({ token: "t" })).rejects.toSatisfy((e: unknown) => isTackleError(e, "push_refused"));

    await workspace.dispose();
    expect(existsSync(workspace.root)).toBe(false);
    expect(await git(repo, ["log", "--format=%s", "-1", "tackle/local-fix-a"], base)).toBe("Bump a");
    expect(await git(repo, ["rev-parse", "HEAD"], base)).toBe(headBefore);
    expect(await git(repo, ["status", "--porcelain"], base)).toBe(" M README.md\n?? notes.txt");
    expect(await git(repo, ["worktree", "list", "--porcelain"], base)).not.toContain("tackle-local-fix-a");
  });

  it("removes worktrees that crashed runs left behind, keeping their branches", async () => {
    const home = path.join(base, "home");
    const crashed = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-crashed", home, sandbox: mode });
    const meta = JSON.parse(readFileSync(`${crashed.root}.json`, "utf8")) as Record<string, unknown>;
    writeFileSync(`${crashed.root}.json`, JSON.stringify({ ...meta, pid: 2 ** 22 + 3, startTime: null }));
    const next = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-next", home, sandbox: mode });
    expect(existsSync(crashed.root)).toBe(false);
    expect(await git(repo, ["worktree", "list", "--porcelain"], base)).not.toContain("tackle-local-crashed");
    expect(await git(repo, ["branch", "--list", "tackle/local-crashed"], base)).toContain("tackle/local-crashed");
    await next.dispose();
  });

  it("refuses a branch that already exists", async () => {
    await git(repo, ["branch", "tackle/local-taken"], base);
    await expect(openLocalWorkspace({ repoPath: repo, branch: "tackle/local-taken", home: path.join(base, "home"), sandbox: mode })).rejects.toThrow(
      /already exists/,
    );
  });

  it.skipIf(!isRoot || !support.available)("as root, runs the sandbox as the repository's owner", async () => {
    await execa("chown", ["-R", "1000:1000", repo]);
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-owned", home: path.join(base, "home"), sandbox: "bwrap" });
    try {
      const result = await workspace.exec.run("id -u; echo change >> README.md; git commit -qam owned && echo COMMITTED", { timeoutMs: 30_000 });
      expect(result.output).toContain("1000\n");
      expect(result.output).toContain("COMMITTED");
      const sha = await git(repo, ["-c", "safe.directory=*", "rev-parse", "tackle/local-owned"], base);
      const objectPath = path.join(repo, ".git", "objects", sha.slice(0, 2), sha.slice(2));
      expect(statSync(objectPath).uid).toBe(1000);
    } finally {
      await workspace.dispose();
    }
  });
});
