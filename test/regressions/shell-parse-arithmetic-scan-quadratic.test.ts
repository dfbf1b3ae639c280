// Broken (red team of #20, thirteenth pass, the policy's shell parser): every Bash command the model
// sends is parsed by `parseShellLayers` (src/agent/policy/parse-shell.ts) in the Tackle process before
// any rule runs. At each `$((` the lexer's `dollarParen` calls `arithmeticEnd`, which scans forward
// for the `))` closing the arithmetic; in `$((()` repeated, every scan runs to the end of the command
// (each repetition leaves two `(` open) and then the text is read as an ordinary `$(…)`, which closes
// five characters later, so the next `$((` scans the rest again: quadratic, with no recursion to
// overflow. Measured on a two-core machine: 0.2 s at 20,000 characters, 0.8 s at 40,000, 1.8 s at
// 80,000; 11.7 s through the policy engine at 160,000, per call, holding the event loop of every job of the process. The
// Bash tool's `command` has no length bound and the model repeats the call at will.
// (The stack overflow on ~3,000 nested `$(` held: the registry reports "The policy check … failed,
// so the call was not run", a denial, not an allow.)
// What should hold: the policy check of one Bash command costs time linear in the command, so a
// 160,000-character command holds the event loop well under 1.5 s (or is refused for its length).
// Fixed: where each `(` closes is found once per command (parse-shell.ts › closingParens), shared by the lexers of its substitutions.
import { describe, expect, it } from "vitest";
import { createPolicyEngine } from "../../src/agent/policy/index.js";
import { canonicalAction, coreTools } from "../../src/agent/tools/index.js";
import { createHarness } from "../unit/tools/helpers.js";
import { longestStall } from "./longest-stall.js";

const bash = coreTools().find((tool) => tool.name === "Bash")!;

describe("the policy check of a Bash command full of unclosed arithmetic", () => {
  it("holds the event loop less than 1.5 s on 160,000 characters of `$((()`", async () => {
    const h = await createHarness();
    try {
      const engine = createPolicyEngine({});
      const command = "$((()".repeat(160_000 / 5);
      let decision: unknown;
      const stall = await longestStall(async () => {
        decision = await engine.check(canonicalAction(bash, { command }), h.ctx);
      });
      expect(decision).toBeDefined();
      expect(stall).toBeLessThan(1_500);
    } finally {
      await h.repo.cleanup();
    }
  }, 120_000);
});
