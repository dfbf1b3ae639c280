// Broken (red team of #20, ninth pass, protected_paths cost): the weights that bound a protected path
// glob (at most three wildcards, weight ≤ 2,048) assume the tested path is one the model can create:
// names of at most 255 characters. But the policy engine tests the model's `file_path` as written,
// before anything on disk rejects it: checkFileWrite → candidatePaths → normalizeRepoPath →
// protectedPaths.matches, with no bound on its length (the Write schema is `z.string().min(1)`). The
// accepted entry `d/*a*a*x` (weight 512) is O(n³) on a name of n characters that fails to match:
// `d/` + 2,000 a's 0.54 s, 4,000 a's ≈ 4 s, and every tenfold longer name ×1000, on the Tackle event
// loop for one Write call (ENAMETOOLONG comes only after). A Bash `rm d/<4,000 a's>` reaches the same globs
// through removedWith (shellTargetIsProtected): 14.3 s measured.
//
// What should hold: a path whose name is longer than a real one (255) is not tested against the globs
// (denied outright, as an over-long tool name is for hooks). The assertion is about time: the check of
// one Write on a 6,000-character name must not hold the event loop for more than 1.5 s (measured:
// 16.4 s here; a linear-cost check takes milliseconds), a generous bound on a two-core machine shared with CI.
// Fixed: a path over 4,096 characters or with a name over 255 is protected without testing a pattern (create-path-matcher.ts isRealPath).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { longestStall } from "./longest-stall.js";
import { createPolicyEngine } from "../../src/agent/policy/index.js";
import { canonicalAction, coreTools, type Tool } from "../../src/agent/tools/index.js";
import { createHarness, type Harness } from "../unit/tools/helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const write = coreTools().find((tool) => tool.name === "Write") as Tool;
const bash = coreTools().find((tool) => tool.name === "Bash") as Tool;

describe("a protected path glob on an over-long model path", () => {
  it("does not hold the event loop for a Write whose name no file system accepts", async () => {
    const engine = createPolicyEngine({ protectedPaths: ["d/*a*a*x"] });
    const filePath = `d/${"a".repeat(6000)}`;
    const stall = await longestStall(() => engine.check(canonicalAction(write, { file_path: filePath, content: "x" }), h.ctx));
    console.log(`longest stall ${stall.toFixed(0)} ms`);
    expect(stall).toBeLessThan(1500);
  }, 120_000);

  it("does not hold the event loop for a Bash rm of an over-long operand (removedWith, same globs)", async () => {
    // Measured: `rm d/` + 2,000 a's 1.6 s, 4,000 a's 14.3 s (policy check only; the command never runs).
    const engine = createPolicyEngine({ protectedPaths: ["d/*a*a*x"] });
    const stall = await longestStall(() => engine.check(canonicalAction(bash, { command: `rm d/${"a".repeat(4000)}` }), h.ctx));
    console.log(`longest stall ${stall.toFixed(0)} ms`);
    expect(stall).toBeLessThan(1500);
  }, 120_000);
});
