import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../../src/config/index.js";
import { createProtectedPaths } from "../../../src/agent/policy/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { compilePathPattern } from "../../../src/util/compile-path-pattern.js";
import { createPathMatcher } from "../../../src/util/create-path-matcher.js";

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

describe("protected path patterns (picomatch)", () => {
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
    ["src/[abc", 'is not a valid glob: Missing closing: "]"'],
    ["src/+(a|b", 'is not a valid glob: Missing closing: ")"'],
    ["{a,b", 'is not a valid glob: Missing closing: "}"'],
    ["[z-a].txt", "is not a valid glob: Range out of order in character class"],
    ["[[:nodigit:]]", "is not a valid glob"],
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
    // Extglobs and ranges in a directory segment are judged by picomatch too.
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

describe("a repeated extglob must match a name one way", () => {
  it.each(["+(a|b).txt", "*(.js|-min)", "logs/+(x)", "+(ab|cd)", "+(\\*|b)"])("takes %s (fixed texts starting differently)", (pattern) => {
    expect(compilePathPattern(pattern).ok).toBe(true);
  });

  it.each(["+(a|ab)", "+(a|[a])", "*(a*)", "+(a|)", "+({a,b})", "+(@(a|b))", "*(a?)"])("refuses %s, naming the group", (pattern) => {
    const compiled = compilePathPattern(pattern);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problem).toContain("repeats a group that can match a name in more than one way");
  });

  it("what it takes still matches as before", () => {
    const compiled = compilePathPattern("+(ab|cd).txt");
    expect(compiled.ok && [compiled.pattern.test("abcdab.txt"), compiled.pattern.test("abc.txt")]).toEqual([true, false]);
  });
});

describe("the ways a pattern's groups can match one place", () => {
  it.each(["{src,lib}/**/*.{js,jsx,ts,tsx}", "{a,b}/{c,d}/{e,f}/{g,h}/{i,j}/{k,l}/x", "logs/{01..31}.txt", `d/${"?(a)".repeat(5)}x`, "@(a|b|c)/!(x).md"])(
    "takes %s (at most 64 ways)",
    (pattern) => {
      expect(compilePathPattern(pattern).ok).toBe(true);
    },
  );

  it.each([
    "{a,b}/{c,d}/{e,f}/{g,h}/{i,j}/{k,l}/{m,n}",
    "logs/{1..100}.txt",
    `d/${"?(a)".repeat(7)}x`,
    `d/${"@(a|b)".repeat(7)}`,
    "{a,{b,c,d,e,f,g,h,i}}/{1..9}",
  ])("refuses %s, naming the limit", (pattern) => {
    const compiled = compilePathPattern(pattern);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problem).toContain("can match one place in more than 64 ways");
  });

  it("counts each !(…) as a wildcard of varying width", () => {
    expect(compilePathPattern("d/!(x)!(y)x").ok).toBe(true);
    const four = compilePathPattern("d/!(w)!(x)!(y)!(z)x");
    expect(four.ok).toBe(false);
    if (!four.ok) expect(four.problem).toContain("more than 3 wildcards");
  });
});

describe("syntax picomatch would pass through as regular expression text", () => {
  it.each([
    ["d/(a|aa)x", "without an extglob operator"],
    ["d/a|b", "`|` outside an extglob"],
    ["d/{a|b,c}", "`|` outside an extglob"],
    ['d/+(a|"a")x', "holds a quote"],
    ["d/x'y", "holds a quote"],
    ["src/c++/**", "opens no extglob"],
    ["d/[ab]?x", "right after `)`, `]` or `}`"],
    ["d/@(a|b)?", "right after `)`, `]` or `}`"],
    ["d/\\1x", "before a digit"],
  ])("refuses %s, saying what to write", (pattern, problem) => {
    const compiled = compilePathPattern(pattern);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problem).toContain(problem);
  });

  it.each(["src/c\\+\\+/**", "d/+(a|b)x", "d/@(a|b)/?x", "d/[+]x", "**/*.{js,jsx,ts,tsx}", "d/\\?x"])("takes %s", (pattern) => {
    expect(compilePathPattern(pattern).ok).toBe(true);
  });
});

describe("what a pattern and a list may weigh", () => {
  it("weighs a pattern's ways to match one place times 8 per wildcard, at most 2,048", () => {
    const weight = (pattern: string) => {
      const compiled = compilePathPattern(pattern);
      return compiled.ok ? compiled.pattern.weight : compiled.problem;
    };
    expect(weight("**/*.{js,jsx,ts,tsx}")).toBe(4 * 8 ** 2);
    expect(weight("*.lock")).toBe(8 ** 2);
    expect(weight("d/*@(a|b|c|d)*@(a|b|c|d)*x")).toMatch(/combines 3 wildcards with 16 ways/);
  });

  it("bounds the sum over the list, naming it", () => {
    const locks = Array.from({ length: 200 }, (_, i) => `*.lock${i}`);
    expect(createPathMatcher(locks).ok).toBe(true);
    const heavy = (count: number) => Array.from({ length: count }, (_, i) => `**/*.{a,b,c,d,e}${i}`);
    expect(createPathMatcher(heavy(100)).ok).toBe(true);
    const result = createPathMatcher(heavy(110));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatch(/^the patterns together weigh 35200, more than 32768 /);
    const yaml = `protected_paths:\n${heavy(110)
      .map((entry) => `  - '${entry}'`)
      .join("\n")}\n`;
    const parsed = parseRepoConfig(yaml);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toEqual([expect.stringMatching(/^`protected_paths`: the patterns together weigh \d+, more than 32768 /)]);
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

  it("counts `**(…)` as a wildcard and an extglob, as picomatch reads it", () => {
    const compiled = compilePathPattern("d/**(a)**(a)*x");
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problem).toContain("more than 3 wildcards");
    expect(compilePathPattern("d/**(a)x").ok).toBe(true);
  });
});
