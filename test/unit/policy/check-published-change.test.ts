import { describe, expect, it } from "vitest";
import type { ChangedPath, PublishedChange } from "../../../src/agent/ports.js";
import { checkPublishedChange } from "../../../src/agent/policy/index.js";
import { lineCount, lineDelta } from "../../../src/util/count-lines.js";
import { parseNumstat } from "../../../src/workspace/git-port.js";
import { parseRawDiff } from "../../../src/workspace/publish-repo.js";

const file = (path: string, extra: Partial<ChangedPath> = {}): ChangedPath => ({
  path,
  status: "M",
  oldMode: "100644",
  newMode: "100644",
  lines: 1,
  bytes: 10,
  addedBytes: 10,
  ...extra,
});
const change = (files: ChangedPath[], commitFiles: ChangedPath[] = []): PublishedChange => ({
  from: "a".repeat(40),
  sha: "b".repeat(40),
  files,
  commitFiles,
  commits: 1,
  lines: files.reduce((sum, f) => sum + f.lines, 0),
  addedBytes: files.reduce((sum, f) => sum + f.addedBytes, 0),
  symlinks: null,
});
/** A new symlink `path -> target` in a tree that held none. */
const linkChange = (path: string, target: string): PublishedChange => ({
  ...change([file(path, { status: "A", oldMode: "000000", newMode: "120000" })]),
  symlinks: { from: new Map(), tip: new Map([[path, target]]), commits: [] },
});
const reasonOf = (config: Parameters<typeof checkPublishedChange>[0], c: PublishedChange): string => {
  const verdict = checkPublishedChange(config, c);
  return verdict.action === "publish" ? "ok" : verdict.reason;
};

describe("checkPublishedChange: the host's verdict on base..sha", () => {
  it("lets an ordinary change through", () => {
    expect(checkPublishedChange({}, change([file("src/a.ts"), file("README.md", { status: "A", oldMode: "000000" })]))).toEqual({ action: "publish" });
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
    expect(reasonOf({}, linkChange("passwd", "/etc/passwd"))).toContain("points out of the repository");
    expect(reasonOf({}, linkChange("docs/up", "../../x"))).toContain("points out of the repository");
    expect(reasonOf({}, linkChange("ci.yml", ".github/workflows/ci.yml"))).toContain("points at the protected path .github/workflows/ci.yml");
    expect(reasonOf({}, linkChange("wf", ".github/workflows"))).toContain("points at the protected path .github/workflows");
    expect(reasonOf({}, linkChange("g", ".git/config"))).toContain("points at the protected path .git/config");
    expect(reasonOf({}, linkChange(".github", "elsewhere"))).toContain("symlink .github stands where protected paths are");
    // A pattern without a slash (any depth) does not make every symlink suspect.
    expect(checkPublishedChange({ protectedPaths: ["*.lock"] }, linkChange("docs/latest", "v2"))).toEqual({ action: "publish" });
  });

  it("refuses files over the size limit and diffs over max_diff_lines", () => {
    expect(reasonOf({}, change([file("blob.bin", { bytes: 11 * 1024 * 1024 })]))).toContain("over the 10485760-byte limit");
    expect(reasonOf({ maxDiffLines: 2000 }, change([file("big.js", { lines: 5001 })]))).toContain("5001 lines, over the repository's max_diff_lines of 2000");
    expect(checkPublishedChange({ maxDiffLines: 2000 }, change([file("big.js", { lines: 2000 })]))).toEqual({ action: "publish" });
  });

  it("refuses a change that adds more than max_diff_bytes (default 5 MiB), naming the key", () => {
    expect(reasonOf({}, change([file("blob.js", { lines: 1, addedBytes: 9 * 1024 * 1024 })]))).toContain("over the repository's max_diff_bytes of 5242880");
    expect(reasonOf({ maxDiffBytes: 1000 }, change([file("a.js", { addedBytes: 600 }), file("b.js", { addedBytes: 600 })]))).toContain(
      "adds 1200 bytes, over the repository's max_diff_bytes of 1000",
    );
    expect(checkPublishedChange({ maxDiffBytes: 1000 }, change([file("a.js", { addedBytes: 1000 })]))).toEqual({ action: "publish" });
  });

  it("asks above require_approval_above, whatever wrote the lines; a refusal beats the question", () => {
    expect(checkPublishedChange({ requireApprovalAbove: 100 }, change([file("numbers.txt", { lines: 1500 })]))).toEqual({
      action: "ask",
      reason: "the branch's diff is 1500 lines, above the repository's require_approval_above of 100",
    });
    expect(checkPublishedChange({ requireApprovalAbove: 100 }, change([file("numbers.txt", { lines: 100 })]))).toEqual({ action: "publish" });
    expect(checkPublishedChange({ requireApprovalAbove: 100, maxDiffLines: 1000 }, change([file("n.txt", { lines: 1500 })]))).toMatchObject({
      action: "refuse",
    });
    expect(checkPublishedChange({ requireApprovalAbove: 100 }, change([file(".github/workflows/ci.yml", { lines: 1500 })]))).toMatchObject({
      action: "refuse",
    });
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

  it("ends a line at \\n, \\r\\n, a lone \\r, U+2028 and U+2029", () => {
    expect(lineCount("a\rb\rc")).toBe(3);
    expect(lineCount("a\r\nb\r\n")).toBe(2);
    expect(lineCount("a\u2028b\u2029c\n")).toBe(3);
    expect(lineCount(Buffer.from("a\u2028b", "utf8"))).toBe(2);
    // Other bytes of the same UTF-8 lead (U+2020, a dagger) are not breaks.
    expect(lineCount("a\u2020b")).toBe(1);
  });

  it("measures a change as lines only one side has, and the bytes of the lines it adds", () => {
    expect(lineDelta("a\nb\nc\n", "a\nB\nc\n")).toEqual({ lines: 2, addedBytes: 2, exact: true });
    expect(lineDelta("", "x".repeat(100))).toEqual({ lines: 1, addedBytes: 101, exact: true });
    expect(lineDelta("keep\n", "keep\rone\rtwo")).toEqual({ lines: 2, addedBytes: 8, exact: true });
  });
});
