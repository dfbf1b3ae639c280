// `agentProse` keeps the code spans GitHub surely renders (`unambiguousCodeRanges`), found with
// /(?<=(?:^|[^\\`])(?:\\\\)*)(`+)(?!`)([^\n|]*?[^`\n|])\1(?!`)/g. The look-behind comes first, so at every
// position of a run of backslashes it walked back over the whole run: quadratic, with or without a backtick
// after it. 60,000 backslashes (what ReportToIssue takes) held the event loop 0.8 s (measured on a shared
// two-core machine), every job with it, and again on every call; `inert` had the same expression. Code
// spans are now found by one scan (`oneLineCodeSpans`).
//
// No clock: on the code before, each case (ten times the reachable size) takes minutes, past the test's
// timeout; linear code answers at once.
import { describe, expect, it } from "vitest";
import { agentProse } from "../../src/util/surface-markdown.js";

describe("agentProse on a long run of backslashes", () => {
  it("answers at once on 600,000 backslashes, and keeps a code span after an even run only", () => {
    const even = "\\".repeat(600_000);
    expect(agentProse(even)).toBe(even);
    expect(agentProse(`${even}\`a\``)).toBe(`${even}\`a\``);
    // After an odd run the first backtick is escaped already; the second is escaped so it opens nothing.
    expect(agentProse(`${even}\\\`a\``)).toBe(`${even}\\\`a\\\``);
  });
});
