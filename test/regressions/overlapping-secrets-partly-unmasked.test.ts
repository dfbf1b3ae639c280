// Broken (red team of #20, fourteenth pass, redaction by value): two job secrets where the end of one is
// the start of the other (`abcdefgh12` and `12345678xyz`), written one after the other as a command or
// a server prints them joined (`abcdefgh12345678xyz`), come out as `[REDACTED]345678xyz`: 9 of the
// second secret's 11 characters reach the model, the transcript and GitHub. src/util/redact.ts ›
// createRedactor joins every secret's form into one alternation replaced left to right; once the first
// secret's match consumes the shared `12`, the second can no longer match where it starts, and nothing
// masks the rest ("longest first" only handles a secret contained in another).
// What should hold: every secret of 8 characters or more is masked wherever it appears: the union of
// all the places any secret matches, overlapping ones included, is masked.
// Fixed: every match of the job's secrets, overlapping ones included, is masked as one run (src/util/redact.ts › maskSpans).
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/util/redact.js";

const FIRST = "abcdefgh12";
const SECOND = "12345678xyz";

describe("two job secrets that overlap in the text", () => {
  it("are both masked whole", () => {
    const redact = createRedactor([FIRST, SECOND]);
    // Each alone is masked (control).
    expect(redact(`a ${SECOND} b`)).toBe("a [REDACTED] b");
    const masked = redact(`joined: abcdefgh12345678xyz`);
    expect(masked).not.toContain("345678xyz");
    expect(masked).not.toContain("abcdefgh");
  });
});
