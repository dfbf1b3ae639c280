import { describe, expect, it } from "vitest";
import type { ChangedPath, PublishedChange, PublishedSymlinks, TreeSymlinks } from "../../../src/agent/ports.js";
import { checkPublishedChange } from "../../../src/agent/policy/index.js";
import { MAX_SYMLINK_STEPS } from "../../../src/agent/policy/check-push-diff.js";
import { createResolveBudget, createSymlinkResolver, MAX_SYMLINK_HOPS, type SymlinkDestination } from "../../../src/agent/policy/resolve-symlink.js";

/** Where the link at `linkPath` leads in a tree holding `links`. */
const resolve = (links: Record<string, string | null>, linkPath: string, steps = 1_000_000): SymlinkDestination =>
  createSymlinkResolver(new Map(Object.entries(links)), createResolveBudget(steps)).destination(linkPath);
const inside = (path: string, via: string[] = []) => ({ kind: "inside", path, via });

describe("createSymlinkResolver: a link's destination through the links of its tree", () => {
  it("reads a target from the link's own directory, as the kernel does", () => {
    expect(resolve({ "docs/latest": "v2" }, "docs/latest")).toEqual(inside("docs/v2"));
    expect(resolve({ "docs/readme": "../README.md" }, "docs/readme")).toEqual(inside("README.md"));
    expect(resolve({ "a/b/c": "../../src/lib/" }, "a/b/c")).toEqual(inside("src/lib"));
    expect(resolve({ x: "./" }, "x")).toEqual(inside(""));
    expect(resolve({ x: "/etc/passwd" }, "x")).toEqual({ kind: "outside", via: [] });
    expect(resolve({ "docs/x": "../../x" }, "docs/x")).toEqual({ kind: "outside", via: [] });
  });

  it("follows a name that is a link of the tree, in the middle of a target or at its end", () => {
    expect(resolve({ self: ".", x: "self/.github/workflows" }, "x")).toEqual(inside(".github/workflows", ["self"]));
    expect(resolve({ self: ".", x: "self" }, "x")).toEqual(inside("", ["self"]));
    expect(resolve({ up: "..", y: "up/outside" }, "y")).toEqual({ kind: "outside", via: ["up"] });
    // A link in a subdirectory is read from there; a link to a directory is walked into.
    expect(resolve({ "docs/api": "../build/api", x: "docs/api/v1" }, "x")).toEqual(inside("build/api/v1", ["docs/api"]));
  });

  it("follows chains, naming the links the target itself went through", () => {
    const chain = { a: "b", b: "c/d", c: ".github" };
    expect(resolve(chain, "a")).toEqual(inside(".github/d", ["b"]));
    expect(resolve(chain, "b")).toEqual(inside(".github/d", ["c"]));
    // l2 is docs/x, `..` twice climbs to the root, and l1 there is docs.
    expect(resolve({ l0: "docs", l1: "l0", l2: "l1/x", l3: "l2/../../l1/y" }, "l3")).toEqual(inside("docs/y", ["l2", "l1"]));
    // A name is looked up where the walk stands: below docs, `l1` is no link.
    expect(resolve({ l0: "docs", l1: "l0", l2: "l1/x", l3: "l2/../l1/y" }, "l3")).toEqual(inside("docs/l1/y", ["l2"]));
  });

  it("climbs `..` from wherever a link leads, not from its name", () => {
    // `a/..` reads as the root, but `a` is `.github/sub`, so `a/..` is `.github`.
    expect(resolve({ a: ".github/sub", b: "a/../workflows" }, "b")).toEqual(inside(".github/workflows", ["a"]));
    expect(resolve({ "docs/in": "api/v1", x: "docs/in/../../../.github" }, "x")).toEqual(inside(".github", ["docs/in"]));
    expect(resolve({ deep: "a/b/c", x: "deep/../../../.." }, "x")).toEqual({ kind: "outside", via: ["deep"] });
    // A name that is no link of the tree is a directory (or dangles): `..` simply climbs back.
    expect(resolve({ x: "src/../README.md" }, "x")).toEqual(inside("README.md"));
  });

  it("refuses to settle loops, as the kernel answers ELOOP", () => {
    expect(resolve({ a: "a" }, "a")).toMatchObject({ kind: "unclear", why: expect.stringContaining("loop") });
    expect(resolve({ a: "b", b: "a" }, "a")).toMatchObject({ kind: "unclear", why: expect.stringContaining("loop") });
    expect(resolve({ a: "a/x" }, "a")).toMatchObject({ kind: "unclear", why: expect.stringContaining("loop") });
    // A link that only goes through a loop is unclear too; one beside it is not.
    const tree = { a: "b/x", b: "a/y", x: "a/z", ok: "docs" };
    expect(resolve(tree, "x")).toMatchObject({ kind: "unclear", why: expect.stringContaining("loop") });
    expect(resolve(tree, "ok")).toEqual(inside("docs"));
  });

  it(`follows at most ${MAX_SYMLINK_HOPS} links in one lookup, counting a link each time it is passed`, () => {
    // `x` itself and then `s` n times: n + 1 links.
    const through = (n: number) => resolve({ s: ".", x: Array(n).fill("s").join("/") }, "x");
    expect(through(MAX_SYMLINK_HOPS - 1)).toEqual(inside("", ["s"]));
    expect(through(MAX_SYMLINK_HOPS)).toMatchObject({ kind: "unclear", why: expect.stringContaining(`more than ${MAX_SYMLINK_HOPS} symlinks`) });
    // A chain of distinct links: l0 -> l1 -> … -> l(n-1) -> docs.
    const chain = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, i === n - 1 ? "docs" : `l${i + 1}`]));
    expect(resolve(chain(MAX_SYMLINK_HOPS), "l0")).toMatchObject({ kind: "inside", path: "docs" });
    expect(resolve(chain(MAX_SYMLINK_HOPS + 1), "l0")).toMatchObject({ kind: "unclear", why: expect.stringContaining("more than") });
  });

  it("answers a chain far longer than the limit without going deeper than the limit, and a short tail of it still resolves", () => {
    const n = 100_000;
    const links = new Map(Array.from({ length: n }, (_, i) => [`l${i}`, i === n - 1 ? "docs" : `l${i + 1}`] as const));
    const resolver = createSymlinkResolver(links, createResolveBudget(10_000_000));
    // 100,000 nested calls would overflow the stack; the walk stops at the limit.
    expect(resolver.destination("l0")).toMatchObject({ kind: "unclear" });
    expect(resolver.destination(`l${n - 2}`)).toEqual(inside("docs", [`l${n - 1}`]));
  });

  it("does not keep an answer cut short by where the lookup began as the answer for a link on the way", () => {
    // l0 -> l1 -> … -> l44 -> docs: l0 is 45 links deep, l5 only 40.
    const links = new Map(Array.from({ length: 45 }, (_, i) => [`l${i}`, i === 44 ? "docs" : `l${i + 1}`] as const));
    const resolver = createSymlinkResolver(links, createResolveBudget(1_000_000));
    expect(resolver.destination("l0")).toMatchObject({ kind: "unclear" });
    expect(resolver.destination("l5")).toEqual(inside("docs", ["l6"]));
    expect(resolver.destination("l4")).toMatchObject({ kind: "unclear" });
  });

  it("cannot settle a target with a NUL, or one it did not read, and says which link's target it is", () => {
    expect(resolve({ x: ".github\0/harmless" }, "x")).toMatchObject({ kind: "unclear", why: expect.stringContaining("NUL") });
    expect(resolve({ m: "docs\0x", x: "m/y" }, "x")).toEqual({
      kind: "unclear",
      why: "goes through the symlink m, whose target holds a NUL byte, which cuts it short on checkout",
    });
    expect(resolve({ m: null, x: "m/y" }, "x")).toMatchObject({
      kind: "unclear",
      why: expect.stringContaining("the symlink m, whose target is over 4096 bytes"),
    });
    // Not going through such a link leaves it out of the answer.
    expect(resolve({ m: null, x: "docs/m" }, "x")).toEqual(inside("docs/m"));
  });

  it("resolves each link of a tree once, however many links go through it", () => {
    // A chain of 35 links and 10,000 links through its head: each of those costs its own target only.
    const links = new Map<string, string | null>(Array.from({ length: 35 }, (_, i) => [`c${i}`, i === 34 ? "docs" : `c${i + 1}`] as const));
    for (let i = 0; i < 10_000; i += 1) links.set(`x${i}`, "c0/f");
    const budget = createResolveBudget(1_000_000);
    const resolver = createSymlinkResolver(links, budget);
    for (let i = 0; i < 10_000; i += 1) expect(resolver.destination(`x${i}`)).toEqual(inside("docs/f", ["c0"]));
    // Two steps for each x, one for each link of the chain: walking the chain each time would take 350,000.
    expect(1_000_000 - budget.steps).toBe(2 * 10_000 + 35);
  });

  it("stops when the budget is spent, and says so", () => {
    const budget = createResolveBudget(5);
    const resolver = createSymlinkResolver(new Map([["x", "a/b/c/d/e/f/g"]]), budget);
    expect(resolver.destination("x")).toMatchObject({ kind: "unclear" });
    expect(budget.exhausted).toBe(true);
  });
});

const link = (path: string, target: string): ChangedPath => ({
  path,
  status: "A",
  oldMode: "000000",
  newMode: "120000",
  lines: 1,
  bytes: target.length,
  addedBytes: target.length,
});
const changeOf = (files: ChangedPath[], symlinks: PublishedSymlinks | null, commitFiles: ChangedPath[] = []): PublishedChange => ({
  from: "a".repeat(40),
  sha: "b".repeat(40),
  files,
  commitFiles,
  commits: 1,
  lines: files.length,
  addedBytes: 0,
  symlinks,
});
const tree = (links: Record<string, string | null>): TreeSymlinks => new Map(Object.entries(links));
const verdict = (change: PublishedChange) => {
  const result = checkPublishedChange({}, change);
  return result.action === "refuse" ? result.reason : result.action;
};

describe("checkPublishedChange: symlinks judged through the links of their trees", () => {
  const from = tree({ self: ".", up: "..", "docs/latest": "v2" });

  it("refuses a new link that a link of the start makes point at a protected path, the root or outside", () => {
    const to = (path: string, target: string) =>
      changeOf([link(path, target)], { from, tip: tree({ ...Object.fromEntries(from.entries()), [path]: target }), commits: [] });
    expect(verdict(to("x", "self/.github/workflows"))).toContain("the symlink x points at the protected path .github/workflows (through the symlink self)");
    expect(verdict(to("y", "up/outside"))).toContain("the symlink y points out of the repository");
    expect(verdict(to("z", "self/"))).toContain("the symlink z points at the repository root");
    // The start's own links, unchanged, are not the change's doing; an ordinary new link publishes.
    expect(verdict(to("docs/guide", "latest/guide.md"))).toBe("publish");
  });

  it("refuses an unchanged link that the change's links now lead to a protected path", () => {
    // At the start `p/a` is no link, so `p/L` leads to `p/.github/workflows`; `p/a -> ../x` makes it `.github/workflows`.
    const start = tree({ "p/L": "a/../.github/workflows" });
    const change = changeOf([link("p/a", "../x")], { from: start, tip: tree({ "p/L": "a/../.github/workflows", "p/a": "../x" }), commits: [] });
    expect(verdict(change)).toContain("the symlink p/L (unchanged, but led elsewhere by the change's symlinks) points at the protected path .github/workflows");
    expect(verdict(change)).not.toMatch(/the symlink p\/a (points|stands|has)/);
  });

  it("judges each new commit's tree too, with the base branch's links known there", () => {
    const base = tree({ wf: ".github/workflows" });
    const inCommit = tree({ self: ".", x: "self/.github/workflows" });
    const change = (commits: TreeSymlinks[]) => changeOf([], { from: tree({}), base, tip: tree({}), commits }, [link("x", "self/.github/workflows")]);
    // Added and removed again before the tip: it still reaches the remote's history.
    expect(verdict(change([inCommit]))).toContain("the symlink x points at the protected path .github/workflows (through the symlink self)");
    // A commit that brings in the base branch's own link (a merge) is not blamed for it.
    expect(verdict(change([base]))).toBe("publish");
  });

  it("refuses a change with symlinks when the host did not list the trees' links", () => {
    expect(verdict(changeOf([link("docs/latest", "v3")], null))).toContain("the symlink docs/latest cannot be judged");
    expect(verdict(changeOf([], null))).toBe("publish");
  });

  it(`refuses, clearly, trees whose links take more than ${MAX_SYMLINK_STEPS} steps to resolve`, () => {
    const big = tree(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`l/${i}`, `../d/${i}`])));
    const commits = Array.from({ length: Math.ceil(MAX_SYMLINK_STEPS / 30_000) + 1 }, () => big);
    expect(verdict(changeOf([link("l/0", "../d/0")], { from: tree({}), tip: big, commits }))).toContain(
      `symlinks take more than ${MAX_SYMLINK_STEPS} steps to resolve`,
    );
  });
});
