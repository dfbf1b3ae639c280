// Broken (red team of #20, eighth pass, the Glob tool's matcher): the seventh pass bounded a Glob
// call by counting the states the matcher visits (yield every GLOB_YIELD_STEPS = 250,000, stop at
// GLOB_MAX_STEPS = 50 million) and says `test` "takes time linear in the path's length times the
// pattern's". But a step counts one state in the current set, while adding a state walks its whole
// precomputed closure over empty edges. A chain of brace groups each holding `**` (`{**,**}` × 142,
// 994 characters; inside a brace `**` is a whole-segment `**`, a loop on any character including `/`)
// keeps ~700 states alive on every character, and the closure of the k-th loop holds every state after
// it: each character costs ~700²/2 closure entries against ~700 counted steps. One 4,000-character
// path (16 directories of 250 characters: the model can make it with one `mkdir -p` in its workspace)
// takes ~1.5 s inside one synchronous `test` call (2.9 million counted steps), and the yield comes only
// between paths, so the event loop is held that long per listed path; the 50-million budget lets ~17
// such paths through one call (~25 s of the Tackle process's CPU). Measured on this two-core machine
// (shared with a CI run): 1.2–1.5 s per path.
//
// What should hold: one Glob call holds the event loop about as long whatever the pattern (the
// step count charging the closure entries walked, or a yield inside a path). The assertion is about
// time: the longest event-loop stall of the hostile pattern against that of `**/*.ts` on the same
// files, allowing the same generous factor of 10 over the larger of the latter and 100 ms as
// glob-wide-pattern-holds-event-loop.test.ts.
// Fixed: the machine's run visits each state once per character (a stamped DFS over empty edges), and its steps count them all.
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

describe("Glob with a chain of `{**,**}` groups over a deep path", () => {
  it("holds the event loop not much longer than an ordinary pattern", async () => {
    // A relative path of ~3,900 characters, built one directory at a time (each mkdir's own path stays short).
    let relative = "";
    for (let level = 0; level < 15; level += 1) {
      relative = path.join(relative, String(level).padStart(2, "0") + "d".repeat(248));
      await mkdir(path.join(h.repo.root, relative));
    }
    for (let i = 0; i < 3; i += 1) await writeFile(path.join(h.repo.root, relative, `${i}${"f".repeat(60)}.ts`), "");
    const hostile = `${"{**,**}".repeat(142)}/Z`;
    expect(hostile.length).toBeLessThanOrEqual(1_000);

    const ordinary = await longestStall(() => callTool(h.ctx, "Glob", { pattern: "**/*.ts" }));
    const wide = await longestStall(() => callTool(h.ctx, "Glob", { pattern: hostile }));
    expect(wide).toBeLessThan(10 * Math.max(ordinary, 100));
  }, 120_000);
});
