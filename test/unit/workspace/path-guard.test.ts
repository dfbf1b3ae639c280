import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, linkSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createPathGuard, type GuardedFs } from "../../../src/workspace/index.js";

describe("path guard", () => {
  let base: string;
  let root: string;
  let guard: GuardedFs;

  const refused = async (filePath: string, intent: "read" | "write", pattern: RegExp): Promise<void> => {
    const error = await guard.resolve(filePath, intent).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isTackleError(error, "path_outside_worktree"), `${filePath} should be refused`).toBe(true);
    expect((error as Error).message).toMatch(pattern);
  };

  beforeAll(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), "tackle-guard-")));
    root = path.join(base, "w");
    mkdirSync(path.join(root, "src", "deep"), { recursive: true });
    mkdirSync(path.join(root, ".git", "hooks"), { recursive: true });
    writeFileSync(path.join(root, ".git", "config"), "[core]\n");
    mkdirSync(path.join(root, "vendor", "lib", ".git"), { recursive: true });
    writeFileSync(path.join(root, "src", "a.ts"), "a\n");
    writeFileSync(path.join(base, "outside.txt"), "secret\n");
    symlinkSync("/etc/passwd", path.join(root, "passwd"));
    symlinkSync("../outside.txt", path.join(root, "up"));
    symlinkSync(base, path.join(root, "basedir"));
    symlinkSync("src/a.ts", path.join(root, "inner-link"));
    symlinkSync(".git/config", path.join(root, "git-config-link"));
    symlinkSync(path.join(base, "new-file-outside"), path.join(root, "dangling"));
    symlinkSync("loop-b", path.join(root, "loop-a"));
    symlinkSync("loop-a", path.join(root, "loop-b"));
    execFileSync("mkfifo", [path.join(root, "fifo")]);
    guard = createPathGuard(root);
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("resolves relative and absolute paths inside the worktree to real paths", async () => {
    expect(guard.root).toBe(root);
    expect(await guard.resolve("src/a.ts", "read")).toBe(path.join(root, "src", "a.ts"));
    expect(await guard.resolve(path.join(root, "src", "a.ts"), "read")).toBe(path.join(root, "src", "a.ts"));
    expect(await guard.resolve("./src/../src/a.ts", "read")).toBe(path.join(root, "src", "a.ts"));
    expect(await guard.resolve("inner-link", "read")).toBe(path.join(root, "src", "a.ts"));
    expect(await guard.resolve(".", "read")).toBe(root);
    // Not there yet: fine to write, and to read (the tool reports "not found").
    expect(await guard.resolve("src/new/dir/file.ts", "write")).toBe(path.join(root, "src", "new", "dir", "file.ts"));
    expect(await guard.resolve("missing.ts", "read")).toBe(path.join(root, "missing.ts"));
  });

  it("refuses .. escapes and absolute paths outside", async () => {
    await refused("../outside.txt", "read", /path '\.\.\/outside\.txt' is outside the worktree .*; use a path inside it/);
    await refused("src/../../outside.txt", "write", /outside the worktree/);
    await refused("/etc/passwd", "read", /outside the worktree/);
    await refused(path.join(base, "outside.txt"), "write", /outside the worktree/);
    await refused("/tmp", "read", /outside the worktree/);
  });

  it("refuses symlinks that leave the tree, including dangling ones for writes", async () => {
    await refused("passwd", "read", /is outside the worktree .* \(it is a symlink to \/etc\/passwd\)/);
    await refused("up", "read", /symlink/);
    await refused("basedir/outside.txt", "read", /outside the worktree/);
    await refused("dangling", "write", /outside the worktree/);
    await refused("loop-a", "read", /symlink loop/);
  });

  it("refuses .git internals, directly or through a symlink", async () => {
    await refused(".git/config", "read", /inside \.git/);
    await refused(".git", "read", /inside \.git/);
    await refused(".git/hooks/pre-commit", "write", /inside \.git/);
    await refused(".GIT/config", "write", /inside \.git/);
    await refused("git-config-link", "write", /inside \.git/);
    await refused("vendor/lib/.git/config", "write", /inside \.git/);
  });

  it("refuses /proc, /dev and special files", async () => {
    await refused("/proc/self/environ", "read", /system path \(\/proc\)/);
    await refused("/dev/sda", "write", /system path \(\/dev\)/);
    await refused("fifo", "read", /a FIFO, not a regular file/);
    await refused("", "read", /empty path/);
    await refused("a\0b", "read", /NUL/);
  });

  it("relative() gives forward-slash paths from the root", () => {
    expect(guard.relative(path.join(root, "src", "a.ts"))).toBe("src/a.ts");
    expect(guard.relative(root)).toBe(".");
    expect(guard.relative("src/deep")).toBe("src/deep");
  });

  it("reads and writes only regular files inside, creating parent directories", async () => {
    expect(await guard.readFile("src/a.ts")).toBe("a\n");
    const written = await guard.writeFile("src/made/up/file.txt", "content\n");
    expect(written).toEqual({ path: path.join(root, "src", "made", "up", "file.txt"), created: true });
    expect(readFileSync(written.path, "utf8")).toBe("content\n");
    expect((await guard.writeFile("src/made/up/file.txt", "v2\n")).created).toBe(false);
    expect(readFileSync(written.path, "utf8")).toBe("v2\n");
    await expect(guard.writeFile("passwd", "pwned")).rejects.toThrow(/outside the worktree/);
    expect(readFileSync(path.join(base, "outside.txt"), "utf8")).toBe("secret\n");
    linkSync(path.join(root, "src", "a.ts"), path.join(root, "hardlink.ts"));
    await expect(guard.writeFile("hardlink.ts", "x")).rejects.toThrow(/hard link/);
  });
});
