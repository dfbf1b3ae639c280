import { describe, expect, it } from "vitest";
import { compileGlob, GLOB_MAX_CHARS, GlobBudgetError, matchesGlob } from "../../../src/util/glob-machine.js";
import { createRedactor } from "../../../src/util/redact.js";

describe("compileGlob's bounds", () => {
  it("pairs braces and finds brackets as before: unclosed ones are text, closed ones still group", () => {
    expect(matchesGlob("b{{c", "{a,b}{{c")).toBe(true);
    expect(matchesGlob("{a", "{{a,b}")).toBe(true);
    expect(matchesGlob("xcy", "x{a,{b,c}}y")).toBe(true);
    expect(matchesGlob("xa}y", "x{a,{b,c}}}y")).toBe(true);
    expect(matchesGlob("[x", "[[]x")).toBe(true);
    expect(matchesGlob("[a", "[a")).toBe(true);
    expect(matchesGlob("a]", "[a]]")).toBe(true);
  });

  it("refuses a pattern longer than GLOB_MAX_CHARS and braces nested past 32, naming the bound", () => {
    expect(() => compileGlob("a".repeat(GLOB_MAX_CHARS + 1))).toThrow(`a glob of ${GLOB_MAX_CHARS + 1} characters; at most ${GLOB_MAX_CHARS}`);
    expect(compileGlob("a".repeat(GLOB_MAX_CHARS)).test("a".repeat(GLOB_MAX_CHARS))).toBe(true);
    const nested = (depth: number) => `${"{a,".repeat(depth)}x${"}".repeat(depth)}`;
    expect(compileGlob(nested(32)).test("x")).toBe(true);
    expect(() => compileGlob(nested(33))).toThrow("a glob nesting braces or extglobs more than 32 deep");
  });
});

describe("bracket classes", () => {
  it("take every character between the brackets as a member, never as regex text", () => {
    expect(matchesGlob("]", "[]|a]")).toBe(true);
    expect(matchesGlob("a", "[]|a]")).toBe(true);
    expect(matchesGlob("", "[]|(|)x]")).toBe(false);
    expect(matchesGlob("(", "[]|(|)x]")).toBe(true);
    expect(matchesGlob("^", "[a^]")).toBe(true);
    expect(matchesGlob("b", "[!a]")).toBe(true);
    expect(matchesGlob("a", "[^a]")).toBe(false);
    // A backslash escapes inside a class too: `[\\]` is the class of `\`, `[\]` an unclosed `[`.
    expect(matchesGlob("\\", "[\\\\]")).toBe(true);
    expect(matchesGlob("[]", "[\\]")).toBe(true);
    expect(matchesGlob("m", "[a-z]")).toBe(true);
  });
});

describe("compileGlob's budget of states", () => {
  it("counts the states it visits and throws GlobBudgetError past maxSteps, naming it", () => {
    const matcher = compileGlob("**/*.ts", { maxSteps: 600 });
    expect(matcher.test("src/a.ts")).toBe(true);
    expect(matcher.steps).toBeGreaterThan(0);
    const before = matcher.steps;
    expect(matcher.test("src/b.js")).toBe(false);
    expect(matcher.steps).toBeGreaterThan(before);
    expect(() => matcher.test(`${"d/".repeat(400)}x.ts`)).toThrow(GlobBudgetError);
    expect(() => compileGlob("*", { maxSteps: 1 }).test("abc")).toThrow("would visit more than 1 states");
  });

  it("has no bound unless given one (Tackle's own patterns, tested for the life of the process)", () => {
    const matcher = compileGlob("**/*.ts");
    for (let i = 0; i < 1_000; i += 1) matcher.test(`${"d/".repeat(50)}x${i}.ts`);
    expect(matcher.steps).toBeGreaterThan(1_000 * 100);
  });
});

describe("matchesGlob", () => {
  it.each([
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.{js,jsx}", "x/a.jsx", true],
    ["**/*.{js,jsx}", "x/a.ts", false],
    ["file?.txt", "file1.txt", true],
    ["file?.txt", "file12.txt", false],
    ["[ab].md", "a.md", true],
    ["[!ab].md", "a.md", false],
    [".github/workflows/**", ".github/workflows", true],
    [".github/workflows/**", ".github/workflows/ci.yml", true],
    [".github/workflows/**", ".github/workflows.yml", false],
    ["**/*.ts", ".hidden/a.ts", true],
    ["a.b", "axb", false],
  ])("%s vs %s -> %s", (glob, path, expected) => {
    expect(matchesGlob(path, glob)).toBe(expected);
  });

  it("matches the basename at any depth with matchBase", () => {
    expect(matchesGlob("keys/deep/server.pem", "*.pem", { matchBase: true })).toBe(true);
    expect(matchesGlob("keys/server.pem", "keys/*.pem", { matchBase: true })).toBe(true);
    expect(matchesGlob("other/keys/server.pem", "keys/*.pem", { matchBase: true })).toBe(false);
  });
});

describe("createRedactor", () => {
  const redact = createRedactor(["my-own-secret-value", "short"]);

  it.each([
    [`token ghp_${"a".repeat(36)}`, "token [REDACTED:github-token]"],
    [`ghs_${"B9".repeat(18)} end`, "[REDACTED:github-token] end"],
    [`github_pat_11ABC_${"x".repeat(40)}`, "[REDACTED:github-token]"],
    ["key=sk-ant-api03-abc_DEF-123456", "key=[REDACTED:anthropic-key]"],
    ["AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws-access-key]"],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:aws-secret-key]"],
    ["Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "Bearer [REDACTED:jwt]"],
    ["Authorization: token abcdef0123456789", "Authorization: token [REDACTED]"],
    ["the my-own-secret-value leaked", "the [REDACTED] leaked"],
    ["url?x=my-own-secret-value", "url?x=[REDACTED]"],
    ["a short word stays", "a short word stays"],
  ])("masks %s", (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it("masks PEM private keys, also when cut off", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----";
    expect(redact(`before\n${pem}\nafter`)).toBe("before\n[REDACTED:private-key]\nafter");
    expect(redact("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk")).toBe("x\n[REDACTED:private-key]");
    expect(redact("-----BEGIN PUBLIC KEY-----\nabc")).toBe("-----BEGIN PUBLIC KEY-----\nabc");
  });

  it("leaves ordinary text alone", () => {
    const text = "const ghost = 'gh_short'; AKIA is a prefix; eyJ alone";
    expect(redact(text)).toBe(text);
  });
});
