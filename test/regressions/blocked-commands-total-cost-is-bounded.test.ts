// A repository's `blocked_commands` `/regex/` entries run in the Tackle process on every text of every
// Bash command: the whole line, each simple command, and each `bash -c` or `eval` script unwrapped, down
// to four shells deep. Each entry was bounded (at most two repetitions whose count varies, commands of at
// most 1,024 characters), the whole check was not: ten `/.*.*x/` entries on a 1,000-character command
// nested four shells deep (six texts of about 1,000 characters) took 23 s on a two-core machine, and the
// list could hold 200 of them, minutes per Bash call with every job's event loop held. The per-entry
// limits had holes too: a fixed count is a V8 loop (`/.*.*[a-z]{64}x/` took 76 s on one 1,024-character
// text), and a chain of two-way groups is exponential (`(?:a|[a-z])` twenty times: 1 s, each one more
// doubling it). And a shell nested deeper than the parser unpacks was not checked at all.
//
// Now: at most 20 `/regex/` entries of at most 256 characters, each whose cost on one 1,024-character
// text could pass the budget is a config error, and a command whose texts together would cost more than
// the budget (four times `/a.*b.*c/` on 1,024 characters) is refused before any entry runs, as is one
// that nests shells deeper than four while blocked_commands list anything.
import { describe, expect, it } from "vitest";
import { createPolicyEngine } from "../../src/agent/policy/index.js";
import { canonicalAction, coreTools } from "../../src/agent/tools/index.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { createHarness } from "../unit/tools/helpers.js";

const bash = coreTools().find((tool) => tool.name === "Bash")!;
const config = (entries: readonly string[]) => `blocked_commands:\n${entries.map((entry) => `  - ${JSON.stringify(entry)}`).join("\n")}\n`;
const problemsOf = (entries: readonly string[]) => {
  const parsed = parseRepoConfig(config(entries));
  return parsed.ok ? [] : parsed.problems;
};
/** Two `.*` each, none matching a command of `a`s: each is tried on every text in full. */
const twoRepetitions = Array.from({ length: 200 }, (_, i) => `/.*.*x${i}y/`);
/** Single-quoted for a shell, as `bash -c` takes a script. */
const quote = (script: string) => `'${script.replaceAll("'", `'\\''`)}'`;

describe("the blocked_commands check of one Bash call", () => {
  it("refuses, before any entry runs, a long command nested four shells deep against 200 two-repetition entries", async () => {
    const h = await createHarness();
    try {
      const engine = createPolicyEngine({ blockedCommands: twoRepetitions });
      const check = (command: string) => engine.check(canonicalAction(bash, { command }), h.ctx);
      const nested = `bash -c ${quote(`bash -c ${quote(`eval eval ${"a".repeat(960)}`)}`)}`;
      expect(nested.length).toBeLessThanOrEqual(1024);
      // The old check ran 200 entries over six texts of about 1,000 characters: minutes, then allowed it.
      expect(await check(nested)).toMatchObject({ action: "deny", reason: expect.stringContaining("would take too long") });
      // A short command nested as deep is still checked against every entry, the last one too.
      expect(await check(`bash -c ${quote(`bash -c ${quote("eval eval echo x199y")}`)}`)).toMatchObject({
        action: "deny",
        reason: expect.stringContaining('forbid "/.*.*x199y/"'),
      });
      expect((await check(`bash -c ${quote(`bash -c ${quote("eval eval echo done")}`)}`)).action).toBe("allow");
    } finally {
      await h.repo.cleanup();
    }
  });

  it("takes at most 20 regular-expression entries in the repository config, naming the count and the limit", () => {
    const problems = problemsOf(twoRepetitions);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("`blocked_commands`");
    expect(problems[0]).toContain("200 regular expressions");
    expect(problems[0]).toContain("at most 20");
    expect(problemsOf([...twoRepetitions.slice(0, 20), ...Array.from({ length: 180 }, (_, i) => `command-${i}`)])).toEqual([]);
  });

  it.each([
    ["a fixed count run as a loop after two repetitions", "/.*.*[a-z]{64}x/"],
    ["a chain of twenty-three two-way groups", `/${"(?:a|[a-z])".repeat(23)}x/`],
  ])("refuses in the config an entry whose one test could take minutes: %s", (_shape, entry) => {
    const problems = problemsOf([entry]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("`blocked_commands[0]`");
    // The cost bound or, first, the shape check (a fixed count above 3 as a third repetition; alternatives that multiply past 256).
    expect(problems[0]).toMatch(/could take too long|counts as one|alternatives multiply/);
  });

  it("refuses a command nesting shells deeper than the check unpacks, whose inner commands no entry would see", async () => {
    const h = await createHarness();
    try {
      // Each shell removes one layer of quoting: `npm publish` appears only after the sixth.
      let command = "n''pm publish";
      for (let layer = 0; layer < 5; layer += 1) command = `bash -c ${quote(command)}`;
      const engine = createPolicyEngine({ blockedCommands: ["npm publish"] });
      expect(await engine.check(canonicalAction(bash, { command }), h.ctx)).toMatchObject({
        action: "deny",
        reason: expect.stringContaining("nests shells"),
      });
      // Four shells are unpacked and checked: the entry is seen.
      let four = "n''pm publish";
      for (let layer = 0; layer < 4; layer += 1) four = `bash -c ${quote(four)}`;
      expect(await engine.check(canonicalAction(bash, { command: four }), h.ctx)).toMatchObject({
        action: "deny",
        reason: expect.stringContaining('forbid "npm publish"'),
      });
    } finally {
      await h.repo.cleanup();
    }
  });
});
