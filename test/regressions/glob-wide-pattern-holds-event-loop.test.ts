// Broken (red team of #20, seventh pass, the Glob tool's matcher): `compileGlob` runs the model's
// pattern as a state machine over each listed path, "linear in the path's length times the pattern's",
// and both are large: a pattern may have 1,000 characters and ripgrep's listing up to 1 MB. A pattern
// of 331 `**` alternatives, `{**,**,…,a/b}Z` (the `a/b` keeps ripgrep from prefiltering by name),
// keeps ~660 states alive on every character of every path, and the whole listing is filtered
// synchronously on the Tackle process's event loop. Measured on this two-core machine with the
// matcher alone: 1.4 µs × 1,000 states per character, so a 1 MB listing (ten thousand 100-character
// paths the model can create with one Bash `touch` loop in its workspace) holds the event loop
// ~27 s per Glob call, against 0.2 s for `**/*.ts`; a handful of calls per turn is minutes.
//
// What should hold: one Glob call holds the event loop about as long whatever the pattern (the
// matcher bounded per listing, a DFA/cache, or the filter off the event loop). The assertion is about
// time, so it compares the longest event-loop stall of the hostile pattern with that of `**/*.ts` on the
// same 2,000 files (200 KB listing; 5.6 s against 0.13 s measured here), allowing a generous factor of 10 over
// the larger of the latter and 100 ms.
// Fixed: the Glob tool yields the event loop every GLOB_YIELD_STEPS states and stops at GLOB_MAX_STEPS with the tool's error; the matcher's closures are computed once.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { longestStall } from "./longest-stall.js";
import { callTool, createHarness, type Harness } from "../unit/tools/helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("Glob with a 1,000-character pattern over a large listing", () => {
  it("holds the event loop not much longer than an ordinary pattern", async () => {
    const dir = path.join(h.repo.root, "d".repeat(40));
    await mkdir(dir);
    for (let i = 0; i < 2_000; i += 1) await writeFile(path.join(dir, `${String(i).padStart(4, "0")}${"f".repeat(50)}.ts`), "");
    const hostile = `{${Array(331).fill("**").join(",")},a/b}Z`;
    expect(hostile.length).toBeLessThanOrEqual(1_000);

    const ordinary = await longestStall(() => callTool(h.ctx, "Glob", { pattern: "**/*.ts" }));
    const wide = await longestStall(() => callTool(h.ctx, "Glob", { pattern: hostile }));
    expect(wide).toBeLessThan(10 * Math.max(ordinary, 100));
  }, 120_000);
});
