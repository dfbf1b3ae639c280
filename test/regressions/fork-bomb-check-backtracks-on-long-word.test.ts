/**
 * Broken (found while bounding blocked_commands, #20): the fork-bomb rule every Bash command passes
 * (`catastrophicReason` in `src/agent/policy/bash-rules.ts`, with no repository config at all) was
 * one regular expression, /([A-Za-z_:.][\w:.]*)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&/, tried at every
 * position of the command: on one long word its name group ran to the word's end and gave back one
 * character at a time from each start, quadratic; 100 KB of `a` took 26 s and 200 KB 120 s in the
 * Tackle process, the event loop held for every job. The model sends the command, so it needs no
 * help from anyone. The same shape held for many `f(){` heads without a closing brace.
 *
 * The rule is now a scan: function heads only where a name can start, each body read up to its
 * first `}` or the next head. No clock: on the code before, each case takes minutes, past the
 * test's timeout; linear code answers at once.
 */
import { describe, expect, it } from "vitest";
import { catastrophicReason } from "../../src/agent/policy/bash-rules.js";

describe("the fork-bomb rule on a command the model made long", () => {
  it("still finds the classic forms and their spellings", () => {
    for (const bomb of [":(){ :|:& };:", "bomb(){ bomb|bomb& }; bomb", "x.y() { x.y | x.y & }; x.y", "echo; f () {\n f|f &\n}"]) {
      expect(catastrophicReason(bomb, [])).toBe("a fork bomb");
    }
    for (const harmless of ["f(){ g|f& }", "f(){ echo; }; f|f&", "af(){ f|f& }x", "echo ':() {'"]) {
      expect(catastrophicReason(harmless, [])).toBeUndefined();
    }
  });

  it("answers at once on one word of 2,000,000 letters", () => {
    expect(catastrophicReason("a".repeat(2_000_000), [])).toBeUndefined();
  });

  it("answers at once on 200,000 function heads that never close", () => {
    expect(catastrophicReason("f(){ f ".repeat(200_000), [])).toBeUndefined();
  });

  it("answers at once on 200,000 words before a parenthesis", () => {
    expect(catastrophicReason(`${"ab.cd:ef ".repeat(200_000)}()`, [])).toBeUndefined();
  });
});
