// Broken (red team of #20, ninth pass, the Glob tool's matcher): `compileGlob` runs the model's
// pattern as a state machine and counts its steps (states visited), yielding every GLOB_YIELD_STEPS
// and stopping at GLOB_MAX_STEPS. But a bracket class is one step tested by a regular expression built
// from the pattern's text: `new RegExp(\`^[${body}]$\`)`, where the body runs from after `[` to the first
// `]` at or after the second character. A body starting with `]` (`[]…]`, a literal `]` in a glob
// class) closes the JS class at once (`[]` is JS's empty class), and the rest of the body is raw regex
// text: `[]|(|)(|)…(|)x]` compiles to `/^[]|(|)(|)…(|)x]$/`, a top-level alternation whose second branch
// tries 2^k ways of matching the empty string before failing on `x`, for every character of every
// listed path. One step by the machine's count, so neither the budget nor the yields apply: measured with
// the matcher alone on the one-character path `a`, k = 20: 0.5 s, 22: 2.3 s, 24: 8.3 s, each more ×2; a
// 1,000-character pattern holds ~330 such groups (forever), on the Tackle process's event loop.
//
// What should hold: a bracket class matches one character as a glob class (`[]|a]` is the class of `]`,
// `|` and `a`), never running pattern text as a regular expression; and one Glob call holds the event
// loop about as long whatever the pattern. The time assertion uses k = 24 (20.4 s stall measured through the Glob tool over this test's small repository, a
// linear matcher takes milliseconds) against a generous 1.5 s bound on this shared two-core machine.
// Fixed: a class's members are escaped before the JavaScript class is built (glob-to-regexp.ts).
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { longestStall } from "./longest-stall.js";
import { matchesGlob } from "../../src/util/glob-machine.js";
import { callTool, createHarness, type Harness } from "../unit/tools/helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("a Glob bracket class whose body starts with ]", () => {
  it("is a class of characters, not regular expression text", () => {
    expect(matchesGlob("a", "[]|a]")).toBe(true);
    expect(matchesGlob("]", "[]|a]")).toBe(true);
  });

  it("does not hold the event loop on a one-character path", async () => {
    await writeFile(path.join(h.repo.root, "a"), "");
    // The slash keeps ripgrep from prefiltering by name: the host's matcher sees every listed path.
    const hostile = `**/[]|${"(|)".repeat(24)}x]`;
    const stall = await longestStall(() => callTool(h.ctx, "Glob", { pattern: hostile }));
    console.log(`longest stall ${stall.toFixed(0)} ms`);
    expect(stall).toBeLessThan(1500);
  }, 120_000);
});
