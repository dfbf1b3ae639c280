// `agentProse` (the one way the agent's Markdown reaches a surface: a ReportToIssue comment, a PR body,
// the tracking comment's summary) breaks cross-repository references with
// /([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)([#@])(?=[0-9a-fA-F])/g, run on each word in the Tackle process. A
// word of letters with one `/` and no `#` or `@` fails at every start after scanning the rest of the
// word: quadratic. ReportToIssue and create_pull_request take a 60,000-character body, so the model
// writes "aaa…a/aaa…a" (one word) and the event loop is held about 2 s on 30,000 characters and 7.5 s on
// 60,000 (measured on a shared two-core machine), every job, webhook and lock renewal with it, and again
// on every call. `maskSurface` (the redacting GitHub client's last pass on every surface write) has the
// same shape: /(\[REDACTED[^\]\n]*\])([(:])/g on "[REDACTED[REDACTED…" (no `]`) scans to the line's end
// from every start: 1.3 s on a 60,000-character comment.
//
// No clock: on the code before, each big case (four and ten times the reachable size) takes minutes,
// past the test's timeout; linear code answers at once.
import { describe, expect, it } from "vitest";
import { agentProse, maskSurface } from "../../src/util/surface-markdown.js";
import { createRedactor } from "../../src/util/redact.js";

describe("agentProse on one long word with a slash", () => {
  it("still breaks a cross-repository reference and leaves a path alone", () => {
    expect(agentProse("see owner/repo#12")).toBe("see owner/repo#\u206012");
    expect(agentProse("src/a/b.ts")).toBe("src/a/b.ts");
  });

  it("answers at once on a word of 240,000 characters", () => {
    const word = `${"a".repeat(160_000)}/${"a".repeat(80_000)}`;
    expect(agentProse(word)).toBe(word);
  });
});

describe("maskSurface on many unclosed [REDACTED", () => {
  it("answers at once on a text of 600,000 characters", () => {
    const text = agentProse("[REDACTED".repeat(600_000 / 9));
    expect(maskSurface(text, createRedactor([]))).toBe(text);
  });
});
