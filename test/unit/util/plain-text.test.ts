import { describe, expect, it } from "vitest";
import { oneLogLine, terminalText } from "../../../src/util/plain-text.js";

describe("plain text for terminals and logs", () => {
  it("terminalText keeps lines and tabs, and shows every other control and invisible format character", () => {
    const clipboard = "\u001b]52;c;Y3VybA==\u0007";
    expect(terminalText(`a\tb\nc${clipboard}`)).toBe("a\tb\nc\\u{1b}]52;c;Y3VybA==\\u{7}");
    // A bidi override, a zero-width space, a carriage return, C1's one-byte CSI and U+2028.
    expect(terminalText("x\u202ey\u200bz\r\u009b2K\u2028")).toBe("x\\u{202e}y\\u{200b}z\\u{d}\\u{9b}2K\\u{2028}");
  });

  it("oneLogLine leaves no line break of any kind", () => {
    expect(oneLogLine("a\nb\r\nc\u0085d\u2029e\tf")).toBe("a\\u{a}b\\u{d}\\u{a}c\\u{85}d\\u{2029}e\\u{9}f");
  });
});
