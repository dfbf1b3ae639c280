import { describe, expect, it } from "vitest";
import { MAX_LISTED_PROBLEMS, MAX_PROBLEM_REPLY_CHARS, PROBLEM_CHARS, problemComment } from "../../../src/worker/problem-comment.js";
import { md } from "../../../src/util/surface-markdown.js";

const HEADING = md`**Tackle could not use the file**, so this job did not run:`;
const CLOSING = md`Fix the file and retry.`;
const keep = (text: string) => text;

describe("problemComment", () => {
  it("lists every problem when there are few, each masked and shown inert", () => {
    const reply = problemComment(HEADING, ["`a`: unknown key (line 1)", "token ghp_secret, ask @someone"], CLOSING, (text) =>
      text.replace("ghp_secret", "[REDACTED]"),
    );
    expect(reply).toBe(
      [
        "**Tackle could not use the file**, so this job did not run:",
        "",
        "- `a`: unknown key (line 1)",
        "- token [REDACTED], ask `@someone`",
        "",
        "Fix the file and retry.",
      ].join("\n"),
    );
  });

  it(`lists at most ${MAX_LISTED_PROBLEMS} and says how many more there are`, () => {
    const problems = Array.from({ length: 5_000 }, (_, i) => `\`k${i}\`: unknown key (line ${i + 1})`);
    const reply = problemComment(HEADING, problems, CLOSING, keep);
    const items = reply.split("\n").filter((line) => line.startsWith("- "));
    expect(items).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(items[0]).toBe("- `k0`: unknown key (line 1)");
    expect(items.at(-1)).toBe(`- …and ${5_000 - MAX_LISTED_PROBLEMS} more problems, not listed here.`);
    expect(reply.endsWith("\n\nFix the file and retry.")).toBe(true);
    expect(problemComment(HEADING, problems.slice(0, MAX_LISTED_PROBLEMS + 1), CLOSING, keep)).toContain("- …and 1 more problem, not listed here.");
  });

  it(`stays within ${MAX_PROBLEM_REPLY_CHARS} characters when each problem is as long as a problem may be and escapes to twice that`, () => {
    // Every `*` is escaped: each item is twice PROBLEM_CHARS, so fewer than twenty fit.
    const problems = Array.from({ length: 100 }, () => "*".repeat(10 * PROBLEM_CHARS));
    const reply = problemComment(HEADING, problems, CLOSING, keep);
    expect(reply.length).toBeLessThanOrEqual(MAX_PROBLEM_REPLY_CHARS);
    const items = reply.split("\n").filter((line) => line.startsWith("- "));
    const shown = items.length - 1;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(MAX_LISTED_PROBLEMS);
    expect(items.at(-1)).toBe(`- …and ${100 - shown} more problems, not listed here.`);
    expect(reply.endsWith("\n\nFix the file and retry.")).toBe(true);
  });
});
