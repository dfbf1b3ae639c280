import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRepoExtensionDefinition } from "../../../src/config/repo-extension-paths.js";
import { readExtensionFiles } from "../../../src/workspace/read-extension-files.js";

describe("readExtensionFiles", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "tackle-ext-read-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (file: string, content: string, mode = 0o444) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
    chmodSync(path.join(dir, file), mode);
  };

  it("lists every regular file sorted, marks the executable ones, reads only the definitions, follows no symlink", async () => {
    write(".tackle/skills/x/SKILL.md", "---\nname: x\n---\n");
    write(".tackle/skills/x/run.sh", "#!/bin/sh\n", 0o555);
    write(".tackle/agents/a.md", "---\nname: a\n---\n");
    write(".tackle/skills/x/notes.md", "not a definition\n");
    writeFileSync(path.join(dir, "outside.md"), "secret\n");
    symlinkSync(path.join(dir, "outside.md"), path.join(dir, ".tackle/skills/x/SKILL-link.md"));
    mkdirSync(path.join(dir, ".claude/skills/y"), { recursive: true });
    symlinkSync(path.join(dir, "outside.md"), path.join(dir, ".claude/skills/y/SKILL.md"));

    const read = await readExtensionFiles(dir, isRepoExtensionDefinition);
    expect(read.fileList).toEqual([".tackle/agents/a.md", ".tackle/skills/x/SKILL.md", ".tackle/skills/x/notes.md", ".tackle/skills/x/run.sh", "outside.md"]);
    expect([...read.executable]).toEqual([".tackle/skills/x/run.sh"]);
    expect(read.files).toEqual([
      { path: ".tackle/agents/a.md", content: "---\nname: a\n---\n" },
      { path: ".tackle/skills/x/SKILL.md", content: "---\nname: x\n---\n" },
    ]);
    expect(read.problems).toEqual([]);
  });

  it("names a definition too large to be one instead of reading it", async () => {
    write(".tackle/skills/big/SKILL.md", "x".repeat(256 * 1024 + 1));
    const read = await readExtensionFiles(dir, isRepoExtensionDefinition);
    expect(read.files).toEqual([]);
    expect(read.problems).toEqual([".tackle/skills/big/SKILL.md: larger than 262144 bytes, more than an agent's or a skill's instructions need"]);
  });
});
