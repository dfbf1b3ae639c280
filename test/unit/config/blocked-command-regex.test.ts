import { describe, expect, it } from "vitest";
import { BLOCKED_CHECK_BUDGET, BLOCKED_REGEX_MAX_ENTRIES, blockedRegexCost, parseBlockedCommand, parseRepoConfig } from "../../../src/config/index.js";

const regex = (entry: string) => {
  const parsed = parseBlockedCommand(entry);
  if (parsed.kind !== "regex") throw new Error(`${entry}: ${parsed.kind === "invalid" ? parsed.problem : "text"}`);
  return parsed;
};
const problem = (entry: string) => {
  const parsed = parseBlockedCommand(entry);
  return parsed.kind === "invalid" ? parsed.problem : undefined;
};

describe("blockedRegexCost", () => {
  it("grows with the text's length to the power of the repetitions plus one", () => {
    expect(blockedRegexCost(regex("/a.*b.*c/").cost, 1024)).toBe(1025 ** 3);
    expect(blockedRegexCost(regex("/docker\\s+push/i").cost, 1024)).toBe(1025 ** 2);
    expect(blockedRegexCost(regex("/npm publish/").cost, 99)).toBe(100);
    expect(BLOCKED_CHECK_BUDGET).toBe(4 * 1025 ** 3);
  });

  it("multiplies alternatives and both ways of each `?`, and counts fixed counts above 3 as loop steps", () => {
    expect(blockedRegexCost(regex("/(npm|yarn|pnpm) (publish|pack)/").cost, 9)).toBe(6 * 10);
    expect(blockedRegexCost(regex("/rm|mv|dd/").cost, 9)).toBe(3 * 10);
    expect(blockedRegexCost(regex("/colou?r/").cost, 9)).toBe(2 * 10);
    expect(blockedRegexCost(regex("/[0-9a-f]{40}/").cost, 9)).toBe(10 * (1 + 16 * 10));
    expect(blockedRegexCost(regex("/[0-9a-f]{40}/").cost, 99)).toBe(100 * (1 + 16 * 40));
    expect(blockedRegexCost(regex("/\\d{3}-\\d{2,2}/").cost, 9)).toBe(10);
    expect(blockedRegexCost(regex("/x{2,5}/").cost, 9)).toBe(10 ** 2);
  });
});

describe("parseBlockedCommand limits", () => {
  it("refuses a regular expression over 256 characters", () => {
    expect(problem(`/${"a".repeat(257)}/`)).toBe("a regular expression of 257 characters; at most 256");
    expect(parseBlockedCommand(`/${"a".repeat(256)}/`).kind).toBe("regex");
    // A text entry is no regular expression: its length is not limited this way.
    expect(parseBlockedCommand("a".repeat(300)).kind).toBe("text");
  });

  it("refuses an entry whose cost on one 1,024-character text is over the budget", () => {
    expect(parseBlockedCommand("/.*[a-z]{256}x/").kind).toBe("regex");
    expect(problem("/.*[a-z]{257}x/")).toContain("could take too long on a command of 1024 characters");
    expect(parseBlockedCommand("/.*.*(?:a|b)(?:c|d)/").kind).toBe("regex");
    expect(problem("/.*.*(?:a|b)(?:c|d)(?:e|f)/")).toContain("could take too long");
    // Refused by the shape check first: a fixed count above 3 counts as a third repetition.
    expect(problem("/.*.*[a-z]{4}x/")).toContain("a fixed count above 3, such as {4}, counts as one");
    expect(parseBlockedCommand("/.*.*[a-z]{3}x/").kind).toBe("regex");
  });

  it("takes the flags d, g, i, m, s and y, and refuses u and v (escapes that change meaning) and unknown ones, naming them", () => {
    for (const flags of ["", "i", "gimsy", "d"]) expect(parseBlockedCommand(`/rm -rf/${flags}`).kind, flags).toBe("regex");
    for (const flags of ["v", "iv", "u", "iu", "x"]) {
      const entry = parseBlockedCommand(`/rm -rf/${flags}`);
      expect(entry).toMatchObject({ kind: "invalid", problem: expect.stringContaining(`the flags \`${flags}\` are not taken`) });
    }
  });

  it("keeps ordinary entries", () => {
    for (const entry of ["/curl.*\\|\\s*sh/", "/docker\\s+push/i", "/git push .*(--force|-f)/", "/(npm|yarn|pnpm) publish.*--tag.*/", "/rm [\\]x]+ -rf/"]) {
      expect(parseBlockedCommand(entry).kind).toBe("regex");
    }
  });
});

describe("blocked_commands in the repository config", () => {
  const config = (entries: readonly string[]) => `blocked_commands:\n${entries.map((entry) => `  - ${JSON.stringify(entry)}`).join("\n")}\n`;
  const regexes = (count: number) => Array.from({ length: count }, (_, i) => `/tool-${i}\\s+run/`);

  it(`takes at most ${BLOCKED_REGEX_MAX_ENTRIES} regular expressions, naming the count and the limit`, () => {
    expect(parseRepoConfig(config(regexes(20))).ok).toBe(true);
    const parsed = parseRepoConfig(config([...regexes(21), "npm publish"]));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problems).toEqual([
        "`blocked_commands`: 21 regular expressions (/…/ entries); at most 20 (plain text entries are not limited this way) (line 2)",
      ]);
    }
  });

  it("counts an invalid regular expression among them, and reports it too", () => {
    const parsed = parseRepoConfig(config([...regexes(20), "/(/"]));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problems).toHaveLength(2);
      expect(parsed.problems.join("\n")).toContain("21 regular expressions");
      expect(parsed.problems.join("\n")).toContain("`blocked_commands[20]`: not a regular expression");
    }
  });

  it("names an entry over 256 characters", () => {
    const parsed = parseRepoConfig(config(["npm publish", `/${"a".repeat(300)}/`]));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toEqual(["`blocked_commands[1]`: a regular expression of 300 characters; at most 256 (line 3)"]);
  });
});
