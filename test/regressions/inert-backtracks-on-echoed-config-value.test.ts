// `inert` (the one way outside text is shown on Tackle's surfaces) runs two regular expressions that are
// quadratic in a word's length, in the Tackle process: the "linky" split
// /^([("'<[]*)(.*?)([)"'>\].,;:!?]*)$/ on a word holding `://` (or `www.`, `@x`, `#1`) followed by a long
// run of `.`, `)`, `]`, … that does not reach the word's end (its lazy middle retries the whole run at every
// step), and CODE_SPAN's look-behind `(?<=(?:^|[^\\`])(?:\\\\)*)` on a long run of backslashes (each
// position walks back over all of them). A config problem quotes the repository's text, and the worker posts
// `inert(redact(problem))` uncapped (process-job.ts, configProblemComment): a `blocked_commands` entry
// `/://……x(/` of 60,000 characters is no regular expression, its problem echoes it, and inert held the event
// loop 8.3 s (30,000: 2.6 s; measured on a shared two-core machine). `.github/tackle.yml` may be 1 MB (what
// the contents API returns), so one push to a hostile repository holds every job of the process for most of
// an hour, and again on each retry. inert("\\".repeat(60_000)) took 2.9 s.
//
// No clock: on the code before, each case here (four and seven times the 60,000 measured) takes minutes,
// past the test's timeout; linear code answers at once.
import { describe, expect, it } from "vitest";
import { inert } from "../../src/util/surface-markdown.js";

/**
 * The problem a config entry of this text got when it was measured (`blocked_commands` entries are now
 * at most 256 characters, and their problems no longer quote them whole): inert's cost is the point.
 */
function problemOf(entry: string): string {
  return `\`blocked_commands[0]\`: not a regular expression: Invalid regular expression: ${entry}: Unterminated group (line 2)`;
}

describe("inert on a config problem that echoes a long value", () => {
  it("still shows an address as code", () => {
    expect(inert("see https://example.com/a.")).toBe("see `https://example.com/a`.");
  });

  it("answers at once on a word with `://` and 240,000 dots", () => {
    const problem = problemOf(`/://${".".repeat(240_000)}x(/`);
    expect(problem.length).toBeGreaterThan(240_000);
    expect(inert(problem).length).toBeGreaterThan(240_000);
  });

  it("answers at once on 400,000 backslashes", () => {
    const problem = problemOf(`/${"\\".repeat(400_000)}(/`);
    expect(inert(problem).length).toBeGreaterThan(400_000);
  });
});
