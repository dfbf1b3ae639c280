import { describe, expect, it } from "vitest";
import { ensureFixesLine } from "../../../src/worker/github-ports.js";

describe("ensureFixesLine", () => {
  it("appends `Fixes #N` after a blank line when the body does not close the issue", () => {
    expect(ensureFixesLine("Changed the conversion.\n\n", 7)).toBe("Changed the conversion.\n\nFixes #7");
  });

  it("an empty body becomes the line alone", () => {
    expect(ensureFixesLine("", 7)).toBe("Fixes #7");
    expect(ensureFixesLine("  \n", 7)).toBe("Fixes #7");
  });

  it.each(["Fixes #7", "fix #7", "Fixed #7", "closes #7", "Close #7", "closed #7", "Resolves #7", "resolve #7", "resolved #7", "FIXES   #7"])(
    "keeps a body that already closes the issue: %s",
    (line) => {
      const body = `Did the thing.\n\n${line}.`;
      expect(ensureFixesLine(body, 7)).toBe(body);
    },
  );

  it("another issue's number, a longer number, or a keyword inside a word does not count", () => {
    expect(ensureFixesLine("Fixes #8", 7)).toBe("Fixes #8\n\nFixes #7");
    expect(ensureFixesLine("Fixes #70", 7)).toBe("Fixes #70\n\nFixes #7");
    expect(ensureFixesLine("prefixes #7", 7)).toBe("prefixes #7\n\nFixes #7");
    expect(ensureFixesLine("See #7", 7)).toBe("See #7\n\nFixes #7");
  });
});
