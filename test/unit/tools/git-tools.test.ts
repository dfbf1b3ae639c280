import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("git_status", () => {
  it("says when the tree is clean", async () => {
    const result = await callTool(h.ctx, "git_status", {});
    expect(result.content).toBe("On branch tackle/issue-1; the working tree is clean.");
  });

  it("lists changes with porcelain codes", async () => {
    await h.repo.write("README.md", "# changed\n");
    await h.repo.write("new.txt", "n\n");
    const result = await callTool(h.ctx, "git_status", {});
    expect(result.content).toContain(" M README.md");
    expect(result.content).toContain("?? new.txt");
  });
});

describe("git_diff", () => {
  it("shows unstaged changes and lists untracked files", async () => {
    await h.repo.write("README.md", "# changed\n");
    await h.repo.write("new.txt", "n\n");
    const result = await callTool(h.ctx, "git_diff", {});
    expect(result.content).toContain("-# demo");
    expect(result.content).toContain("+# changed");
    expect(result.content).toContain("Untracked files (not in the diff):\nnew.txt");
  });

  it("shows staged changes with staged", async () => {
    await h.repo.write("README.md", "# staged\n");
    const none = await callTool(h.ctx, "git_diff", { staged: true });
    expect(none.content).toContain("No staged changes");
    await h.repo.git("add", "README.md");
    const staged = await callTool(h.ctx, "git_diff", { staged: true });
    expect(staged.content).toContain("+# staged");
  });
});

describe("git_log", () => {
  it("shows recent commits, 10 by default, at most 100", async () => {
    const result = await callTool(h.ctx, "git_log", {});
    expect(result.content).toMatch(/^[0-9a-f]{10} \S+ Test: initial$/);
    const tooMany = await callTool(h.ctx, "git_log", { count: 500 });
    expect(tooMany.is_error).toBe(true);
    expect(tooMany.content).toContain("count");
  });
});

describe("git_commit", () => {
  it("commits every change by default", async () => {
    await h.repo.write("a.txt", "a\n");
    const result = await callTool(h.ctx, "git_commit", { message: "Add a" });
    expect(result.is_error).toBe(false);
    expect(result.content).toMatch(/^Committed [0-9a-f]{10} on tackle\/issue-1: Add a$/);
    expect(await h.repo.git("log", "-1", "--format=%s")).toBe("Add a");
  });

  it("commits only the given files", async () => {
    await h.repo.write("a.txt", "a\n");
    await h.repo.write("b.txt", "b\n");
    await callTool(h.ctx, "git_commit", { message: "Only a", files: ["a.txt"] });
    expect(await h.repo.git("status", "--porcelain")).toBe("?? b.txt");
  });

  it("says when there is nothing to commit", async () => {
    const result = await callTool(h.ctx, "git_commit", { message: "Nothing" });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("Nothing to commit");
  });

  it("refuses an empty message", async () => {
    const result = await callTool(h.ctx, "git_commit", { message: "  " });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("message");
  });

  it("refuses to commit a change to a protected path", async () => {
    await h.repo.write(".github/workflows/ci.yml", "on: push\n");
    const result = await callTool(h.ctx, "git_commit", { message: "ci" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain(".github/workflows/ci.yml");
    const other = await callTool(h.ctx, "git_commit", { message: "other", files: ["README.md"] });
    expect(other.is_error).toBe(false);
  });
});

describe("git_branch", () => {
  it("lists branches, marking the current one", async () => {
    const result = await callTool(h.ctx, "git_branch", { action: "list" });
    expect(result.content).toContain("  main");
    expect(result.content).toContain("* tackle/issue-1");
  });

  it("creates tackle/ branches only, and switches to them", async () => {
    const refused = await callTool(h.ctx, "git_branch", { action: "create", name: "feature" });
    expect(refused.is_error).toBe(true);
    expect(refused.content).toContain('must start with "tackle/"');
    const created = await callTool(h.ctx, "git_branch", { action: "create", name: "tackle/other" });
    expect(created.is_error).toBe(false);
    expect(await h.ctx.git.currentBranch()).toBe("tackle/other");
    const again = await callTool(h.ctx, "git_branch", { action: "create", name: "tackle/other" });
    expect(again.content).toContain("already exists");
  });

  it("validates names", async () => {
    for (const name of ["tackle/../x", "tackle/a b", "-x", "tackle/x.lock", "tackle/.hidden"]) {
      const result = await callTool(h.ctx, "git_branch", { action: "create", name });
      expect(result.is_error, name).toBe(true);
      expect(result.content, name).toContain("not a valid branch name");
    }
    const missing = await callTool(h.ctx, "git_branch", { action: "switch" });
    expect(missing.content).toContain("name is required");
  });

  it("switches between existing branches but not to the base branch or with uncommitted changes", async () => {
    await h.repo.git("branch", "tackle/second");
    const base = await callTool(h.ctx, "git_branch", { action: "switch", name: "main" });
    expect(base.is_error).toBe(true);
    expect(base.content).toContain("base branch");
    await h.repo.write("dirty.txt", "x");
    const dirty = await callTool(h.ctx, "git_branch", { action: "switch", name: "tackle/second" });
    expect(dirty.is_error).toBe(true);
    expect(dirty.content).toContain("dirty.txt");
    await h.repo.git("add", "-A");
    await h.repo.git("commit", "-q", "-m", "dirty");
    const ok = await callTool(h.ctx, "git_branch", { action: "switch", name: "tackle/second" });
    expect(ok.content).toBe("Switched from tackle/issue-1 to tackle/second.");
    const unknown = await callTool(h.ctx, "git_branch", { action: "switch", name: "tackle/nope" });
    expect(unknown.content).toContain("No local branch");
  });
});
