import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../../src/config/index.js";
import { createProtectedPaths } from "../../../src/agent/policy/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { compilePathPattern } from "../../../src/util/compile-path-pattern.js";
import { createPathMatcher, MAX_STEPS_PER_PATH } from "../../../src/util/create-path-matcher.js";

function matcherOf(...globs: string[]) {
  const result = createPathMatcher(globs);
  if (!result.ok) throw new Error(result.problems.join("; "));
  return result.matcher;
}

function problemOf(glob: string): string {
  const compiled = compilePathPattern(glob);
  if (compiled.ok) throw new Error(`expected a problem with ${glob}`);
  return compiled.problem;
}

describe("protected path patterns (the host's glob machine)", () => {
  it.each([
    // extglob
    ["+(a|b).txt", "ab.txt", true],
    ["+(a|b).txt", "c.txt", false],
    ["secrets/@(prod|staging).env", "secrets/prod.env", true],
    ["secrets/@(prod|staging).env", "secrets/dev.env", false],
    ["config/!(*.example)", "config/app.yml", true],
    ["config/!(*.example)", "config/app.example", false],
    // POSIX classes
    ["[[:digit:]].txt", "5.txt", true],
    ["[[:digit:]].txt", "a.txt", false],
    ["keys/[[:alpha:]]*.pem", "keys/prod.pem", true],
    ["keys/[[:alpha:]]*.pem", "keys/1.pem", false],
    // brace ranges, as bash expands them
    ["env{1..3}.yml", "env2.yml", true],
    ["env{1..3}.yml", "env4.yml", false],
    ["db/{01..10}.sql", "db/07.sql", true],
    ["db/{01..10}.sql", "db/7.sql", false],
    ["f{1..9..2}", "f3", true],
    ["f{1..9..2}", "f4", false],
    ["part-{a..c}", "part-b", true],
    ["part-{a..c}", "part-d", false],
    ["*.{yml,yaml}", "deploy/x.yaml", true],
    // dotfiles: wildcards match them
    ["*.pem", ".ssh/.hidden.pem", true],
    ["config/*", "config/.env", true],
    ["**/secrets/**", ".config/secrets/.token", true],
    // ** and a directory pattern matching the directory itself
    [".github/workflows/**", ".github/workflows", true],
    [".github/workflows/**", ".github/workflows/ci.yml", true],
    [".github/workflows/**", ".github/workflows/nested/deep/x.yml", true],
    [".github/workflows/**", ".github/workflows.yml", false],
    [".github/workflows/**", ".github", false],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    // a pattern without a slash matches a name at any depth; with one, from the root
    ["*.lock", "deep/dir/yarn.lock", true],
    ["infra/*.tf", "infra/main.tf", true],
    ["infra/*.tf", "other/infra/main.tf", false],
    ["./docs/**", "docs/a.md", true],
  ])("%s vs %s -> %s", (glob, path, expected) => {
    expect(matcherOf(glob).matches(path)).toBe(expected);
  });

  it.each([
    ["src/[abc", "is not a valid glob: a `[` is never closed; write `\\[`"],
    ["src/+(a|b", "is not a valid glob: a `+(` is never closed"],
    ["{a,b", "is not a valid glob: a `{` is never closed"],
    ["[z-a].txt", "is not a valid glob: the range z-a in [z-a] is out of order"],
    ["[[:nodigit:]]", "is not a valid glob: [:nodigit:] is not a POSIX class"],
    ["d/[/]", "cannot match any path as written"],
    ["config/!(*)", "cannot match any path as written"],
    ["{a..5}", "{a..5} is not a range of whole numbers or of single letters"],
    ["{1..5000}", "{1..5000} has 5000 values, more than 1000"],
    ["/secrets/**", "starts with `/`"],
    ["!keep.txt", "starts with `!`"],
    ["docs/", "ends with `/`; write `docs/**`"],
    ["a/../b", "has a `.` or `..` segment"],
    ["a//b", "has an empty path segment"],
    ["a\\", "ends with a `\\` that escapes nothing"],
  ])("refuses %s, naming why", (glob, why) => {
    expect(problemOf(glob)).toContain(`\`${glob}\` `);
    expect(problemOf(glob)).toContain(why);
  });

  it("matchesOrContains: the directory itself or anything below it could be protected", () => {
    const matcher = matcherOf(".github/workflows/**", ".git/**", "infra/*.tf");
    // A symlink or a file in place of these directories touches protected paths.
    for (const dir of ["", ".github", ".github/workflows", ".github/workflows/sub", ".git", ".git/hooks", "infra"]) {
      expect(matcher.matchesOrContains(dir), dir).toBe(true);
    }
    for (const dir of ["src", ".githubx", ".github/ISSUE_TEMPLATE", "infra/modules", "docs/.github"]) {
      expect(matcher.matchesOrContains(dir), dir).toBe(false);
    }
    // A pattern without a slash can match below any directory.
    expect(matcherOf("*.lock").matchesOrContains("src/deep")).toBe(true);
    // Extglobs and ranges in a directory segment are judged by the same machine.
    expect(matcherOf("env{1..3}/**").matchesOrContains("env2")).toBe(true);
    expect(matcherOf("env{1..3}/**").matchesOrContains("env4")).toBe(false);
    expect(matcherOf("+(a|b)/x").matchesOrContains("ab")).toBe(true);
    expect(matcherOf("+(a|b)/x").matchesOrContains("c")).toBe(false);
  });

  it("createProtectedPaths throws config_invalid rather than protect nothing", () => {
    expect(() => createProtectedPaths([".github/workflows/**", "src/[abc"])).toThrow(/protected_paths: `src\/\[abc` is not a valid glob/);
    try {
      createProtectedPaths(["docs/"]);
    } catch (error) {
      expect(isTackleError(error, "config_invalid")).toBe(true);
    }
    expect.assertions(2);
  });

  it("removedWith: what replacing or removing a path takes along, anchored patterns only", () => {
    const paths = createProtectedPaths([".github/workflows/**", ".git/**", "*.lock"]);
    expect(paths.matches(".github/workflows/ci.yml")).toBe(true);
    expect(paths.removedWith(".github")).toBe(true);
    expect(paths.removedWith("")).toBe(true);
    expect(paths.removedWith("yarn.lock")).toBe(true);
    // A lock file under build is for the host's check to see (it knows whether one is tracked).
    expect(paths.removedWith("build")).toBe(false);
    expect(paths.matchesOrContains("build")).toBe(true);
  });
});

describe("what backtracking matchers could not take", () => {
  it.each([
    // Repeated groups whose alternatives overlap, chains of them, optional groups: linear here.
    ["+(a|ab)x", "aababx", true],
    ["+(a|ab)x", "aabab", false],
    ["d/*(a*)x", "d/aaax", true],
    [`d/${"@([a]|aa)".repeat(40)}x`, `d/${"a".repeat(60)}x`, true],
    [`d/${"@([a]|aa)".repeat(40)}x`, `d/${"a".repeat(81)}x`, false],
    [`d/${"?(a)".repeat(30)}${"a".repeat(30)}x`, `d/${"a".repeat(45)}x`, true],
    ["d/!(x)!(x)!(x)y", "d/abcy", true],
    ["config/!(*.example|*.sample)", "config/app.sample", false],
    ["config/!(*.example|*.sample)", "config/app.yml", true],
    ["d/**(a)x", "d/bax", true],
    // Parentheses without an operator, `|`, `+` and quotes are characters.
    ["app/(admin)/**", "app/(admin)/page.tsx", true],
    ["app/(admin)/**", "app/admin/page.tsx", false],
    ["d/a|b", "d/a|b", true],
    ["src/c++/**", "src/c++/main.cc", true],
    ['d/"x"', 'd/"x"', true],
    ["d/[ab]?x", "d/acx", true],
    // A newline in a name is a character like any other: `**` and `*` cross it.
    [".github/workflows/**", ".github/workflows/a\nb.yml", true],
    ["secrets/*", "secrets/a\nb", true],
  ])("%s vs %s -> %s", (glob, path, expected) => {
    expect(matcherOf(glob).matches(path)).toBe(expected);
  });

  it("tests a path in steps linear in its length, whatever the pattern repeats", () => {
    const steps = (glob: string, path: string) => {
      const compiled = compilePathPattern(glob);
      if (!compiled.ok) throw new Error(compiled.problem);
      return compiled.pattern.run(path, Number.POSITIVE_INFINITY).steps;
    };
    for (const glob of [`d/${"*a".repeat(20)}x`, "**/a/**/a/**/a/**/x", `d/${"@([a]|aa)".repeat(40)}x`, "d/+(a|aa|aaa)+(a|aa)x", `d/${"!(x)".repeat(10)}y`]) {
      const short = steps(glob, `d/${"a".repeat(100)}`);
      const long = steps(glob, `d/${"a".repeat(200)}`);
      // Twice the path, at most about twice the steps (no power of the length).
      expect(long, glob).toBeLessThan(2.2 * short);
    }
  });
});

describe("what a pattern and a list may hold", () => {
  it("refuses a pattern whose machine would pass the size bound, naming it", () => {
    expect(problemOf(`d/${"{1..999}".repeat(10)}`)).toContain("builds a machine of more than 20000 states and edges");
    expect(problemOf(`d/${"x".repeat(1_001)}`)).toContain("at most 1000");
  });

  it("refuses a !(…) too complex to negate", () => {
    expect(problemOf(`d/!(${Array.from({ length: 8 }, (_, i) => `*${"abcdefgh"[i]}?????`).join("|")})`)).toContain("too complex to negate");
  });

  it("bounds the sum over the list, naming it", () => {
    const locks = Array.from({ length: 200 }, (_, i) => `*.lock${i}`);
    expect(createPathMatcher(locks).ok).toBe(true);
    const heavy = (count: number) => Array.from({ length: count }, (_, i) => `d${i}/{1..999}`);
    expect(createPathMatcher(heavy(5)).ok).toBe(true);
    const result = createPathMatcher(heavy(40));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatch(/^the patterns together build machines of \d+ states and edges, more than 60000/);
    const yaml = `protected_paths:\n${heavy(40)
      .map((entry) => `  - '${entry}'`)
      .join("\n")}\n`;
    const parsed = parseRepoConfig(yaml);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toEqual([expect.stringMatching(/^`protected_paths`: the patterns together build machines of \d+ states/)]);
  });

  it("protects a path whose test would spend more than MAX_STEPS_PER_PATH, untested", () => {
    // 200 entries that keep many states alive on every character, and a name of distinct characters,
    // so no move is found in a machine's cache: each character costs the live states' edges.
    const wide = Array.from({ length: 200 }, (_, i) => `**/${"*?".repeat(8)}x${i}`);
    const path = `d/${Array.from({ length: 250 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("")}`;
    const steps = matcherOf(...wide).patterns.reduce((sum, pattern) => sum + pattern.run(path, Number.POSITIVE_INFINITY).steps, 0);
    expect(steps).toBeGreaterThan(MAX_STEPS_PER_PATH);
    const matcher = matcherOf(...wide);
    expect(matcher.matches(path)).toBe(true);
    expect(matcher.matches("d/a")).toBe(false);
  });

  it("caches a machine's moves: a second test of the same path costs about one step per character", () => {
    const [pattern] = matcherOf("**/*.{ts,tsx}").patterns;
    const path = "packages/app/src/components/Button.test.js";
    const first = pattern?.run(path, Number.POSITIVE_INFINITY).steps ?? 0;
    const second = pattern?.run(path, Number.POSITIVE_INFINITY).steps ?? 0;
    expect(second).toBeLessThan(first);
    // A run reads the path and the path with a slash (what could match below it): twice its length.
    expect(second).toBeLessThanOrEqual(2 * (path.length + 1));
  });
});

describe("paths no file system holds", () => {
  it("are protected without testing a pattern (a name over 255 characters, a path over 4,096)", () => {
    const matcher = createPathMatcher(["d/*a*a*x"]);
    if (!matcher.ok) throw new Error(matcher.problems.join("; "));
    expect(matcher.matcher.matches(`d/${"a".repeat(255)}`)).toBe(false);
    expect(matcher.matcher.matches(`d/${"a".repeat(256)}`)).toBe(true);
    expect(matcher.matcher.matches(`${"d/".repeat(2_049)}x`)).toBe(true);
    expect(matcher.matcher.matchesOrContains("a".repeat(300))).toBe(true);
  });
});
