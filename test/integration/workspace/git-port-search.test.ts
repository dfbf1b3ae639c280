import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createRepoCache, createSearch, detectSandbox, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { makeRemote, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("git port", () => {
  let base: string;
  let workspace: Workspace;

  beforeAll(async () => {
    base = tempDir("git-port");
    const remote = await makeRemote(base);
    workspace = await createRepoCache({ home: path.join(base, "home") }).prepare({
      jobId: "git-port",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/gitport",
      branch: "tackle/issue-5",
      startFrom: "base",
      sandbox: mode,
    });
  });

  afterAll(async () => {
    await workspace.dispose();
    removeDir(base);
  });

  it("reports status, diffs, commits selected files and logs", async () => {
    const { git, fs } = workspace;
    expect(await git.status()).toEqual([]);
    await fs.writeFile("README.md", "hello\nworld\n");
    await fs.writeFile("src/new file.ts", "a\nb\nc\n");
    expect(await git.status()).toEqual([
      { path: "README.md", code: " M" },
      { path: "src/new file.ts", code: "??" },
    ]);
    expect(await git.diff({})).toContain("+world");
    expect(await git.diffStat("main")).toEqual({ files: ["README.md", "src/new file.ts"], lines: 4 });

    const sha = await git.commit("Only the readme", ["README.md"]);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await git.diff({ staged: true })).toBe("");
    expect(await git.status()).toEqual([{ path: "src/new file.ts", code: "??" }]);
    const log = await git.log(2);
    expect(log[0]).toMatchObject({ sha, subject: "Only the readme", author: "tackle" });
    expect(log[1]?.subject).toBe("initial");
    expect(await git.diff({ base: "main" })).toContain("+world");
    expect(await workspace.commitsAhead()).toBe(1);
  });

  it("lists, creates and switches branches, refusing odd names", async () => {
    const { git } = workspace;
    expect(await git.listBranches()).toEqual(expect.arrayContaining(["main", "tackle/issue-5"]));
    await git.createBranch("tackle/experiment");
    await git.switchBranch("tackle/experiment");
    expect(await git.currentBranch()).toBe("tackle/experiment");
    await git.switchBranch("tackle/issue-5");
    await expect(git.createBranch("--force")).rejects.toSatisfy((e: unknown) => isTackleError(e, "git"));
    await expect(git.createBranch("a..b")).rejects.toSatisfy((e: unknown) => isTackleError(e, "git"));
    await expect(git.commit("   ")).rejects.toThrow(/empty commit message/);
  });
});

describe("search port (ripgrep)", () => {
  let root: string;
  let outside: string;

  beforeAll(() => {
    root = tempDir("search");
    outside = tempDir("search-outside");
    writeFileSync(path.join(outside, "secret.txt"), "needle outside the worktree\n");
    mkdirSync(path.join(root, "src"));
    writeFileSync(path.join(root, "src", "a.ts"), "const needle = 1;\n");
    writeFileSync(path.join(root, "src", "b.ts"), Array.from({ length: 5000 }, (_, i) => `needle line ${i}`).join("\n"));
    symlinkSync(outside, path.join(root, "escape"));
  });

  afterAll(() => {
    removeDir(root);
    removeDir(outside);
  });

  it("searches the worktree without following symlinks out of it", async () => {
    const search = createSearch(root);
    const result = await search.ripgrep(["--files-with-matches", "needle"], {});
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split("\n").filter(Boolean).sort()).toEqual(["src/a.ts", "src/b.ts"]);
    expect(result.stdout).not.toContain("secret");
    await expect(search.ripgrep(["-L", "needle"], {})).rejects.toSatisfy((e: unknown) => isTackleError(e, "path_outside_worktree"));
    await expect(search.ripgrep(["--follow", "needle"], {})).rejects.toThrow(/symlinks/);
    await expect(search.ripgrep(["-iL", "needle"], {})).rejects.toThrow(/symlinks/);
    // A pattern that looks like -L is a value, not the flag.
    expect((await search.ripgrep(["--regexp", "-Lzz-not-there"], {})).exitCode).toBe(1);
  });

  it("reports no match as exit code 1 and caps output", async () => {
    const search = createSearch(root);
    expect(await search.ripgrep(["zzz-not-there"], {})).toEqual({ stdout: "", exitCode: 1, truncated: false });
    const capped = await search.ripgrep(["-n", "needle", "src/b.ts"], { maxOutputBytes: 1000 });
    expect(capped.truncated).toBe(true);
    expect(capped.stdout.length).toBeLessThanOrEqual(1000);
    expect(capped.stdout.endsWith("\n")).toBe(true);
  });

  it("ignores RIPGREP_CONFIG_PATH and fails clearly on a bad pattern", async () => {
    const config = path.join(root, "rgrc");
    writeFileSync(config, "--follow\n");
    process.env.RIPGREP_CONFIG_PATH = config;
    try {
      const result = await createSearch(root).ripgrep(["--files-with-matches", "needle"], {});
      expect(result.stdout).not.toContain("secret");
    } finally {
      delete process.env.RIPGREP_CONFIG_PATH;
    }
    await expect(createSearch(root).ripgrep(["("], {})).rejects.toThrow(/ripgrep failed/);
  });
});
