import { describe, expect, it } from "vitest";
import type { ChangedPath, PublishedChange } from "../../../src/agent/ports.js";
import { checkPublishedChange } from "../../../src/agent/policy/index.js";
import { lineCount } from "../../../src/util/count-lines.js";
import { parseNumstat } from "../../../src/workspace/git-port.js";
import { parseRawDiff } from "../../../src/workspace/publish-repo.js";

const file = (path: string, extra: Partial<ChangedPath> = {}): ChangedPath => ({
  path,
  status: "M",
  oldMode: "100644",
  newMode: "100644",
  lines: 1,
  bytes: 10,
  ...extra,
});
const change = (files: ChangedPath[], commitFiles: ChangedPath[] = []): PublishedChange => ({
  from: "a".repeat(40),
  sha: "b".repeat(40),
  files,
  commitFiles,
  commits: 1,
  lines: files.reduce((sum, f) => sum + f.lines, 0),
});
const reasonOf = (config: Parameters<typeof checkPublishedChange>[0], c: PublishedChange): string => {
  const verdict = checkPublishedChange(config, c);
  return verdict.ok ? "ok" : verdict.reason;
};

describe("checkPublishedChange: the host's verdict on base..sha", () => {
  it("lets an ordinary change through", () => {
    expect(checkPublishedChange({}, change([file("src/a.ts"), file("README.md", { status: "A", oldMode: "000000" })]))).toEqual({ ok: true });
  });

  it("refuses a protected path in the net change, or in any single commit even when the net change is clean", () => {
    expect(reasonOf({}, change([file(".github/workflows/ci.yml")]))).toContain("protected path .github/workflows/ci.yml");
    expect(reasonOf({ protectedPaths: ["package.json"] }, change([], [file("package.json")]))).toContain("protected path package.json");
    // A rename out of a protected directory shows as its deletion.
    expect(
      reasonOf({}, change([file(".github/workflows/ci.yml", { status: "D", newMode: "000000" }), file("ci.yml", { status: "A", oldMode: "000000" })])),
    ).toContain(".github/workflows/ci.yml");
  });

  it("refuses submodules (gitlinks) added, changed or removed", () => {
    expect(reasonOf({}, change([file("vendor/lib", { status: "A", oldMode: "000000", newMode: "160000" })]))).toContain("submodule vendor/lib");
    expect(reasonOf({}, change([file("vendor/lib", { status: "D", oldMode: "160000", newMode: "000000" })]))).toContain("submodule vendor/lib");
  });

  it("refuses symlinks out of the repository, at protected paths, or in the place of a protected directory", () => {
    const link = (path: string, target: string) => file(path, { status: "A", oldMode: "000000", newMode: "120000", symlinkTarget: target });
    expect(reasonOf({}, change([link("passwd", "/etc/passwd")]))).toContain("points out of the repository");
    expect(reasonOf({}, change([link("docs/up", "../../x")]))).toContain("points out of the repository");
    expect(reasonOf({}, change([link("ci.yml", ".github/workflows/ci.yml")]))).toContain("points at the protected path .github/workflows/ci.yml");
    expect(reasonOf({}, change([link("wf", ".github/workflows")]))).toContain("points at the protected path .github/workflows");
    expect(reasonOf({}, change([link("g", ".git/config")]))).toContain("points at the protected path .git/config");
    expect(reasonOf({}, change([link(".github", "elsewhere")]))).toContain("symlink .github stands where protected paths are");
    // A pattern without a slash (any depth) does not make every symlink suspect.
    expect(checkPublishedChange({ protectedPaths: ["*.lock"] }, change([link("docs/latest", "v2")]))).toEqual({ ok: true });
  });

  it("refuses files over the size limit and diffs over max_diff_lines", () => {
    expect(reasonOf({}, change([file("blob.bin", { bytes: 11 * 1024 * 1024 })]))).toContain("over the 10485760-byte limit");
    expect(reasonOf({ maxDiffLines: 2000 }, change([file("big.js", { lines: 5001 })]))).toContain("5001 lines, over the repository's max_diff_lines of 2000");
    expect(checkPublishedChange({ maxDiffLines: 2000 }, change([file("big.js", { lines: 2000 })]))).toEqual({ ok: true });
  });
});

describe("what the host reads from its own repository", () => {
  it("parses diff-tree's raw output, modes and all", () => {
    const raw = [`:100644 100755 ${"1".repeat(40)} ${"2".repeat(40)} M`, "run.sh", `:000000 120000 ${"0".repeat(40)} ${"3".repeat(40)} A`, "link", ""].join(
      "\0",
    );
    expect(parseRawDiff(raw)).toEqual([
      { path: "run.sh", status: "M", oldMode: "100644", newMode: "100755", oldSha: "1".repeat(40), newSha: "2".repeat(40) },
      { path: "link", status: "A", oldMode: "000000", newMode: "120000", oldSha: "0".repeat(40), newSha: "3".repeat(40) },
    ]);
  });

  it("leaves binary entries of numstat to be counted by content, never as 0", () => {
    expect(parseNumstat("3\t1\tsrc/a.ts\0-\t-\tbig.js\0")).toEqual([
      { path: "src/a.ts", lines: 4 },
      { path: "big.js", lines: null },
    ]);
  });

  it("counts lines of any content, NUL bytes included", () => {
    expect(lineCount(Buffer.from("x\0\n1\n2\n"))).toBe(3);
    expect(lineCount(Buffer.from("no newline"))).toBe(1);
    expect(lineCount(Buffer.alloc(0))).toBe(0);
  });
});
