import { symlink, utimes } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.repo.write("src/a.ts", "export const alpha = 1;\n");
  await h.repo.write("src/deep/b.ts", "export const Beta = 2;\n// alpha again\n");
  await h.repo.write("src/c.js", "const gamma = 3;\n");
  await h.repo.write(".hidden/d.ts", "hidden alpha\n");
  await h.repo.write("node_modules/pkg/index.ts", "alpha in deps\n");
  await h.repo.write("dist/out.ts", "alpha built\n");
  await h.repo.write(".gitignore", "dist/\n");
  // Distinct mtimes, oldest first: a.ts, b.ts, c.js.
  const now = Date.now() / 1000;
  await utimes(path.join(h.repo.root, "src/a.ts"), now - 300, now - 300);
  await utimes(path.join(h.repo.root, "src/deep/b.ts"), now - 200, now - 200);
  await utimes(path.join(h.repo.root, "src/c.js"), now - 100, now - 100);
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("Glob", () => {
  it("finds files at any depth with **, newest first", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "src/**/*.ts" });
    expect(result.content.split("\n")).toEqual(["src/deep/b.ts", "src/a.ts"]);
  });

  it("anchors a pattern without a slash at the search path", async () => {
    const top = await callTool(h.ctx, "Glob", { pattern: "*.ts" });
    expect(top.content).toContain("No files match");
    const inSrc = await callTool(h.ctx, "Glob", { pattern: "*.ts", path: "src" });
    expect(inSrc.content).toBe("src/a.ts");
  });

  it("includes hidden and ignored files but never node_modules or .git", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "**/*.ts" });
    expect(result.content).toContain(".hidden/d.ts");
    expect(result.content).toContain("dist/out.ts");
    expect(result.content).not.toContain("node_modules");
    const git = await callTool(h.ctx, "Glob", { pattern: "**/HEAD" });
    expect(git.content).toContain("No files match");
  });

  it('treats path "." as the root', async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "src/*.js", path: "." });
    expect(result.content).toBe("src/c.js");
    const grep = await callTool(h.ctx, "Grep", { pattern: "gamma", path: "." });
    expect(grep.content).toBe("Found 1 file\nsrc/c.js");
  });

  it("supports brace alternatives", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "src/**/*.{js,ts}" });
    expect(result.content.split("\n")).toEqual(["src/c.js", "src/deep/b.ts", "src/a.ts"]);
  });

  it("does not follow symlinked directories", async () => {
    await symlink(path.join(h.repo.root, "src"), path.join(h.repo.root, "link"));
    const result = await callTool(h.ctx, "Glob", { pattern: "link/**/*.ts" });
    expect(result.content).toContain("No files match");
  });

  it("caps the list at 100 with a note", async () => {
    for (let i = 0; i < 120; i += 1) await h.repo.write(`many/f${i}.txt`, "x");
    const result = await callTool(h.ctx, "Glob", { pattern: "many/*.txt" });
    const lines = result.content.split("\n");
    expect(lines.filter((line) => line.startsWith("many/"))).toHaveLength(100);
    expect(result.content).toContain("120 files match; showing the 100 most recently modified");
  });

  it("refuses a pattern over 1,000 characters as an invalid input, naming the bound", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: `src/${"{".repeat(1_000)}` });
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/pattern.*1000/s);
  });

  it("refuses braces nested past 32 as the tool's error, and takes unclosed braces and brackets as text", async () => {
    const deep = await callTool(h.ctx, "Glob", { pattern: `${"{a,".repeat(40)}x${"}".repeat(40)}` });
    expect(deep.is_error).toBe(true);
    expect(deep.content).toContain("nesting braces or extglobs more than 32 deep");
    await h.repo.write("odd/{[{x", "x");
    const literal = await callTool(h.ctx, "Glob", { pattern: "odd/{[{x" });
    expect(literal.content).toBe("odd/{[{x");
  });

  it("refuses a file as path", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "*", path: "src/a.ts" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("not a directory");
  });
});

describe("Grep", () => {
  it("lists matching files by default, respecting .gitignore and skipping .git", async () => {
    const result = await callTool(h.ctx, "Grep", { pattern: "alpha" });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("src/a.ts");
    expect(result.content).toContain("src/deep/b.ts");
    expect(result.content).toContain(".hidden/d.ts");
    expect(result.content).not.toContain("dist/out.ts");
    expect(result.content).toMatch(/^Found \d+ files/);
  });

  it("shows content with line numbers and context", async () => {
    const result = await callTool(h.ctx, "Grep", { pattern: "alpha again", output_mode: "content", context: 1, path: "src" });
    expect(result.content).toContain("src/deep/b.ts:2:// alpha again");
    expect(result.content).toContain("src/deep/b.ts-1-export const Beta = 2;");
  });

  it("counts matches per file", async () => {
    const result = await callTool(h.ctx, "Grep", { pattern: "const", output_mode: "count", path: "src" });
    expect(result.content).toContain("src/a.ts:1");
    expect(result.content).toContain("src/c.js:1");
  });

  it("is case-sensitive unless asked", async () => {
    const sensitive = await callTool(h.ctx, "Grep", { pattern: "beta", path: "src" });
    expect(sensitive.content).toContain("No matches");
    const insensitive = await callTool(h.ctx, "Grep", { pattern: "beta", path: "src", case_insensitive: true });
    expect(insensitive.content).toContain("src/deep/b.ts");
  });

  it("filters by glob and limits with head_limit", async () => {
    const js = await callTool(h.ctx, "Grep", { pattern: "const", glob: "*.js" });
    expect(js.content).toContain("src/c.js");
    expect(js.content).not.toContain("a.ts");
    const limited = await callTool(h.ctx, "Grep", { pattern: "const", output_mode: "content", head_limit: 1, path: "src" });
    expect(limited.content).toContain("showing the first 1 of 3 lines");
  });

  it("searches a pattern starting with a dash", async () => {
    await h.repo.write("flags.txt", "use --force here\n");
    const result = await callTool(h.ctx, "Grep", { pattern: "--force", output_mode: "content" });
    expect(result.content).toContain("flags.txt:1:use --force here");
  });

  it("reports an invalid regex", async () => {
    const result = await callTool(h.ctx, "Grep", { pattern: "foo(" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("valid Rust regex");
  });
});
