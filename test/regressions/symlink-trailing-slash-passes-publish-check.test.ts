/**
 * Partial (red team of #20, third pass, the publish check): a symlink standing for a protected
 * directory or for the repository root is refused (`x -> .github` holds `.github/workflows/**`;
 * `x -> .` is the root), but the same target written with a trailing slash, which the kernel resolves
 * to the same directory, was published: `checkPublishedChange` normalizes the target with
 * `path.posix.normalize`, which keeps the slash, and neither `matches` nor `couldMatchBelow` nor the
 * `resolved === "."` test sees `.github/` or `./`.
 */
import { describe, expect, it } from "vitest";
import type { ChangedPath, PublishedChange } from "../../src/agent/ports.js";
import { checkPublishedChange } from "../../src/agent/policy/check-push-diff.js";

const symlink = (path: string, target: string): { entry: ChangedPath; target: string } => ({
  entry: { path, status: "A", oldMode: "000000", newMode: "120000", lines: 1, bytes: target.length, addedBytes: target.length },
  target,
});

/** The change adding `links` to a tree that held none. */
const change = (...links: Array<{ entry: ChangedPath; target: string }>): PublishedChange => ({
  from: "a".repeat(40),
  sha: "b".repeat(40),
  files: links.map((link) => link.entry),
  commitFiles: [],
  commits: 1,
  lines: links.length,
  addedBytes: links.reduce((sum, link) => sum + link.entry.addedBytes, 0),
  symlinks: { from: new Map(), tip: new Map(links.map((link) => [link.entry.path, link.target])), commits: [] },
});

describe("a symlink target with a trailing slash", () => {
  it("the forms without the slash are refused (as documented)", () => {
    expect(checkPublishedChange({}, change(symlink("x", ".github"))).action).toBe("refuse");
    expect(checkPublishedChange({}, change(symlink("x", "."))).action).toBe("refuse");
  });

  it.each([
    ["x", ".github/"],
    ["docs/x", "../.github/"],
    ["x", ".github/./"],
    ["x", "./"],
    ["docs/x", "../"],
  ])("%s -> %s is refused like the same target without the slash", (path, target) => {
    expect(checkPublishedChange({}, change(symlink(path, target))).action).toBe("refuse");
  });
});

describe("one resolved form for every spelling of a symlink's target", () => {
  const reason = (path: string, target: string, protectedPaths?: string[]) => {
    const verdict = checkPublishedChange(protectedPaths === undefined ? {} : { protectedPaths }, change(symlink(path, target)));
    return verdict.action === "refuse" ? verdict.reason : verdict.action;
  };

  it.each([
    ["x", ".github//", ".github"],
    ["x", "./.github/.", ".github"],
    ["x", ".//.github///workflows//", ".github/workflows"],
    ["docs/x", "..//.github/workflows/./", ".github/workflows"],
    ["x", ".git/", ".git"],
    ["x", "./.git", ".git"],
  ])("%s -> %s points at the protected path %s", (path, target, resolved) => {
    expect(reason(path, target)).toContain(`points at the protected path ${resolved}`);
  });

  it.each([
    ["x", "./"],
    ["x", ".//."],
    ["docs/x", "../"],
    ["docs/deep/x", "../..//"],
  ])("%s -> %s points at the repository root", (path, target) => {
    expect(reason(path, target)).toContain(`symlink ${path} points at the repository root`);
  });

  it.each([
    ["x", "/"],
    ["x", "//"],
    ["x", "/etc/"],
    ["x", "../"],
    ["docs/x", "../../"],
    ["docs/x", "..//..//x"],
  ])("%s -> %s points out of the repository", (path, target) => {
    expect(reason(path, target)).toContain("points out of the repository");
  });

  it("climbs a `..` after a name from wherever that name leads: the name may itself be a symlink", () => {
    // `a -> .github/sub` publishes (nothing protected is below it), and `b -> a/../workflows` beside it
    // is `.github/workflows` to the kernel, though it reads as `workflows`. (Once refused outright, as
    // the host could not tell from the target alone whether `a` was a link; it now reads the tree's links.)
    expect(reason("a", ".github/sub")).toBe("publish");
    const both = checkPublishedChange({}, change(symlink("a", ".github/sub"), symlink("b", "a/../workflows")));
    expect(both.action === "refuse" && both.reason).toContain("symlink b points at the protected path .github/workflows (through the symlink a)");
    expect(reason("x", "a/../.github/")).toContain("points at the protected path .github");
    expect(reason("docs/x", "../src/../README.md")).toBe("publish");
  });

  it("refuses a NUL in the target: checkout hands symlink(2) only what comes before it", () => {
    expect(reason("x", ".github\0/harmless")).toContain("NUL");
  });

  it("still publishes ordinary symlinks, with or without a trailing slash", () => {
    expect(reason("docs/latest", "v2/")).toBe("publish");
    expect(reason("docs/latest", "./v2")).toBe("publish");
    expect(reason("x", "docs/")).toBe("publish");
    expect(reason("docs/readme", "../README.md")).toBe("publish");
    expect(reason("a/b/c", "../../src/lib/")).toBe("publish");
    expect(reason("x", ".github/ISSUE_TEMPLATE/")).toBe("publish");
    // A repository's own directory pattern, written with the slash too.
    expect(reason("x", "secrets/", ["secrets/**"])).toContain("points at the protected path secrets");
  });
});
