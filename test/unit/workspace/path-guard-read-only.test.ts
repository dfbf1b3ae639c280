/**
 * The repository's skills and agents, extracted beside the worktree: the file tools read them by
 * absolute path, never write them, and never leave them by `..` or a symlink.
 */
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createPathGuard, type GuardedFs } from "../../../src/workspace/index.js";
import { callTool, createHarness, type Harness } from "../tools/helpers.js";

let h: Harness;
let ext: string;
let skillFile: string;
let guard: GuardedFs;

beforeEach(async () => {
  h = await createHarness();
  ext = `${h.repo.root}.extensions`;
  const skillDir = path.join(ext, ".tackle", "skills", "lint");
  mkdirSync(skillDir, { recursive: true });
  skillFile = path.join(skillDir, "SKILL.md");
  writeFileSync(skillFile, "---\nname: lint\ndescription: Lints.\n---\nRun the linter.\n");
  writeFileSync(path.join(path.dirname(h.repo.root), "secret.txt"), "host secret\n");
  // Extraction never writes a symlink; one planted anyway must not lead out.
  symlinkSync(path.join(path.dirname(h.repo.root), "secret.txt"), path.join(skillDir, "planted"));
  guard = createPathGuard(h.repo.root, { readOnlyDirs: [ext] });
  h.ctx.fs = guard;
});
afterEach(async () => {
  await h.repo.cleanup();
});

async function refusal(filePath: string, intent: "read" | "write"): Promise<string> {
  const error = await guard.resolve(filePath, intent).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(isTackleError(error, "path_outside_worktree"), `${filePath} (${intent}) should be refused`).toBe(true);
  return (error as Error).message;
}

describe("path guard: read-only directories beside the worktree", () => {
  it("resolves an absolute path inside for reading, shows it absolute, and reads it", async () => {
    expect(await guard.resolve(skillFile, "read")).toBe(realpathSync(skillFile));
    expect(guard.relative(skillFile)).toBe(skillFile);
    expect(guard.relative(path.join(h.repo.root, "README.md"))).toBe("README.md");
    expect(await guard.readFile(skillFile)).toContain("Run the linter.");
  });

  it("Read returns a skill file's numbered lines", async () => {
    const result = await callTool(h.ctx, "Read", { file_path: skillFile });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("     5\tRun the linter.");
  });

  it("Glob lists a skill's folder by its absolute path, symlinks left out", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "**/*", path: path.dirname(skillFile) });
    expect(result.is_error).toBe(false);
    expect(result.content).toBe(skillFile);
  });

  it("refuses every write into it, by the guard and by Write and Edit, and the file stays as it was", async () => {
    expect(await refusal(skillFile, "write")).toMatch(/is in the repository's skills and agents .*, which are read-only; change files inside the worktree/);
    expect(await refusal(path.join(ext, "new.txt"), "write")).toMatch(/read-only/);
    await expect(guard.writeFile(skillFile, "hijacked")).rejects.toThrow(/read-only/);
    const write = await callTool(h.ctx, "Write", { file_path: skillFile, content: "hijacked" });
    expect(write.is_error).toBe(true);
    const edit = await callTool(h.ctx, "Edit", { file_path: skillFile, old_string: "Run the linter.", new_string: "Exfiltrate." });
    expect(edit.is_error).toBe(true);
    expect(readFileSync(skillFile, "utf8")).toContain("Run the linter.");
  });

  it("refuses .. escapes out of it and symlinks planted in it", async () => {
    expect(await refusal(path.join(ext, "..", "secret.txt"), "read")).toMatch(/is outside the worktree/);
    expect(await refusal(`${ext}/.tackle/skills/lint/../../../../secret.txt`, "read")).toMatch(/is outside the worktree/);
    expect(await refusal(`${ext}/../../../../../etc/passwd`, "read")).toMatch(/outside the worktree/);
    expect(await refusal(path.join(path.dirname(skillFile), "planted"), "read")).toMatch(/outside the worktree .*resolves to .*secret\.txt/);
    const read = await callTool(h.ctx, "Read", { file_path: path.join(path.dirname(skillFile), "planted") });
    expect(read.is_error).toBe(true);
    expect(read.content).not.toContain("host secret");
  });

  it("is reached by absolute path only: a relative path still means the worktree", async () => {
    const relative = path.relative(h.repo.root, skillFile);
    expect(relative.startsWith("..")).toBe(true);
    expect(await refusal(relative, "read")).toMatch(/is outside the worktree/);
  });

  it("a guard without read-only directories refuses the same path", async () => {
    const plain = createPathGuard(h.repo.root);
    await expect(plain.resolve(skillFile, "read")).rejects.toThrow(/is outside the worktree/);
  });
});
