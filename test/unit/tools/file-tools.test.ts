import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("Read", () => {
  it("returns numbered lines like cat -n", async () => {
    await h.repo.write("src/a.ts", "one\ntwo\nthree\n");
    const result = await callTool(h.ctx, "Read", { file_path: "src/a.ts" });
    expect(result.is_error).toBe(false);
    expect(result.content).toBe("     1\tone\n     2\ttwo\n     3\tthree");
  });

  it("accepts an absolute path inside the worktree", async () => {
    await h.repo.write("a.txt", "x\n");
    const result = await callTool(h.ctx, "Read", { file_path: path.join(h.repo.root, "a.txt") });
    expect(result.content).toBe("     1\tx");
  });

  it("reads a window with offset and limit and says how to read the rest", async () => {
    await h.repo.write("long.txt", `${Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
    const result = await callTool(h.ctx, "Read", { file_path: "long.txt", offset: 10, limit: 5 });
    expect(result.content).toContain("    10\tline 10");
    expect(result.content).toContain("    14\tline 14");
    expect(result.content).not.toContain("line 15\n");
    expect(result.content).toContain("has 50 lines");
    expect(result.content).toContain("offset=15");
  });

  it("defaults to 1000 lines", async () => {
    await h.repo.write("big.txt", Array.from({ length: 1500 }, (_, i) => `l${i + 1}`).join("\n"));
    const result = await callTool(h.ctx, "Read", { file_path: "big.txt" });
    expect(result.content).toContain("  1000\tl1000");
    expect(result.content).not.toContain("l1001");
    expect(result.content).toContain("offset=1001");
  });

  it("cuts very long lines", async () => {
    await h.repo.write("min.js", `${"x".repeat(5000)}\n`);
    const result = await callTool(h.ctx, "Read", { file_path: "min.js" });
    expect(result.content.length).toBeLessThan(2200);
    expect(result.content).toContain("line cut: 5000 characters");
  });

  it("says when the file is empty", async () => {
    await h.repo.write("empty.txt", "");
    const result = await callTool(h.ctx, "Read", { file_path: "empty.txt" });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("empty");
  });

  it("refuses directories and points to Glob", async () => {
    await h.repo.write("src/a.ts", "x");
    const result = await callTool(h.ctx, "Read", { file_path: "src" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("is a directory; use Glob");
  });

  it("refuses binary files with their size", async () => {
    await h.repo.write("img.bin", Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    const result = await callTool(h.ctx, "Read", { file_path: "img.bin" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("binary file, 5 bytes");
  });

  it("says how many lines there are when offset is past the end", async () => {
    await h.repo.write("a.txt", "1\n2\n3\n");
    const result = await callTool(h.ctx, "Read", { file_path: "a.txt", offset: 10 });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("has 3 lines");
  });

  it("reports a missing file", async () => {
    const result = await callTool(h.ctx, "Read", { file_path: "nope.txt" });
    expect(result.is_error).toBe(true);
    expect(result.content).toBe("nope.txt does not exist; use Glob to find files.");
  });

  it("refuses paths outside the worktree", async () => {
    const result = await callTool(h.ctx, "Read", { file_path: "../../etc/passwd" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("outside the worktree");
  });
});

describe("Write", () => {
  it("creates parent directories and reports bytes and lines", async () => {
    const result = await callTool(h.ctx, "Write", { file_path: "deep/new/file.txt", content: "a\nb\n" });
    expect(result.is_error).toBe(false);
    expect(result.content).toBe("Created deep/new/file.txt: 4 bytes, 2 lines.");
    expect(await h.repo.read("deep/new/file.txt")).toBe("a\nb\n");
  });

  it("overwrites an existing file", async () => {
    await h.repo.write("a.txt", "old");
    const result = await callTool(h.ctx, "Write", { file_path: "a.txt", content: "new" });
    expect(result.content).toContain("Overwrote a.txt");
    expect(await h.repo.read("a.txt")).toBe("new");
  });

  it("refuses to write over a directory", async () => {
    await h.repo.write("dir/x", "");
    const result = await callTool(h.ctx, "Write", { file_path: "dir", content: "x" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("is a directory");
  });

  it("refuses a symlink leading out of the worktree", async () => {
    await symlink(h.repo.home, path.join(h.repo.root, "escape"));
    const result = await callTool(h.ctx, "Write", { file_path: "escape/x.txt", content: "x" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("outside the worktree");
  });
});

describe("Edit", () => {
  beforeEach(async () => {
    await h.repo.write("src/app.ts", "const a = 1;\nconst b = 2;\nconst c = 1;\n");
  });

  it("replaces a unique match and shows the edited lines", async () => {
    const result = await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "const b = 2;", new_string: "const b = 3;" });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("Edited src/app.ts");
    expect(result.content).toContain("     2\tconst b = 3;");
    expect(await h.repo.read("src/app.ts")).toBe("const a = 1;\nconst b = 3;\nconst c = 1;\n");
  });

  it("keeps $ patterns literal", async () => {
    await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "const b = 2;", new_string: "const b = '$&$1';" });
    expect(await h.repo.read("src/app.ts")).toContain("const b = '$&$1';");
  });

  it("refuses several matches without replace_all, saying how many", async () => {
    const result = await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "= 1;", new_string: "= 9;" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("occurs 2 times");
    expect(result.content).toContain("replace_all");
  });

  it("replaces every match with replace_all", async () => {
    const result = await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "= 1;", new_string: "= 9;", replace_all: true });
    expect(result.is_error).toBe(false);
    expect(await h.repo.read("src/app.ts")).toBe("const a = 9;\nconst b = 2;\nconst c = 9;\n");
  });

  it("replaces at most 100,000 occurrences at once, and refuses more without changing the file", async () => {
    await h.repo.write("many.txt", "x\n".repeat(100_000));
    const done = await callTool(h.ctx, "Edit", { file_path: "many.txt", old_string: "x", new_string: "y", replace_all: true });
    expect(done.is_error).toBe(false);
    expect(await h.repo.read("many.txt")).toBe("y\n".repeat(100_000));
    await h.repo.write("more.txt", "x\n".repeat(100_001));
    const refused = await callTool(h.ctx, "Edit", { file_path: "more.txt", old_string: "x", new_string: "y", replace_all: true });
    expect(refused).toMatchObject({ is_error: true, content: expect.stringContaining("more than 100000 times in more.txt") });
    expect(await h.repo.read("more.txt")).toBe("x\n".repeat(100_001));
  });

  it("refuses an edit that would make the file larger than Edit takes, saying the size", async () => {
    await h.repo.write("grow.txt", "ab\n".repeat(50_000));
    const refused = await callTool(h.ctx, "Edit", { file_path: "grow.txt", old_string: "ab", new_string: "z".repeat(300), replace_all: true });
    expect(refused).toMatchObject({ is_error: true, content: expect.stringContaining(`grow.txt ${50_000 * 301} bytes, over the 10485760 bytes`) });
    expect(await h.repo.read("grow.txt")).toBe("ab\n".repeat(50_000));
  });

  it("explains a miss caused by whitespace", async () => {
    const result = await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "const  b = 2;", new_string: "x" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("not found");
    expect(result.content).toContain("whitespace");
  });

  it("refuses identical strings", async () => {
    const result = await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "a", new_string: "a" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("identical");
  });

  it("refuses a missing file unless old_string is empty, which creates it", async () => {
    const missing = await callTool(h.ctx, "Edit", { file_path: "src/new.ts", old_string: "x", new_string: "y" });
    expect(missing.is_error).toBe(true);
    expect(missing.content).toContain("does not exist");
    const created = await callTool(h.ctx, "Edit", { file_path: "src/new.ts", old_string: "", new_string: "export {};\n" });
    expect(created.is_error).toBe(false);
    expect(await h.repo.read("src/new.ts")).toBe("export {};\n");
  });

  it("refuses an empty old_string on a non-empty file", async () => {
    const result = await callTool(h.ctx, "Edit", { file_path: "src/app.ts", old_string: "", new_string: "x" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("not empty");
  });

  it("matches files with CRLF line ends", async () => {
    await h.repo.write("win.txt", "a\r\nb\r\nc\r\n");
    const result = await callTool(h.ctx, "Edit", { file_path: "win.txt", old_string: "a\nb", new_string: "a\nB" });
    expect(result.is_error).toBe(false);
    expect(await h.repo.read("win.txt")).toBe("a\r\nB\r\nc\r\n");
  });
});
