// Broken (red team of #20, tenth pass, protected_paths glob machine): `!(…)` is made deterministic at
// compile time within MAX_COMPLEMENT_WORK = 100,000 (glob-machine.ts › Builder.complement), but a unit
// of that work counts only the states of a set (`1 + dfa[d].length`), not what stepping them costs:
// `inner.step` tests every edge with `hasUnit`, a linear scan over the edge's character set. A class of
// ~980 separate characters (`[ĀĂĄ…]`, each its own range) gives ~1,960 character classes to try from
// each deterministic state and a set of ~980 ranges to scan for each, so `!(*[ĀĂĄ…]??)` (986 characters,
// accepted, machine size 41) costs ~40 ms to compile, of which the work count sees a sliver. 200 such
// entries (distinct by where their characters start): parseRepoConfig 10.1 s (each entry is compiled
// twice, per entry and for the list's weight), createProtectedPaths (policy engine, push check) 4.7 s,
// on the Tackle process's event loop, measured on this machine. This test uses 50 entries.
//
// What should hold: compiling a repository's protected_paths holds the event loop for a bounded time
// whatever the entries hold (the complement's work counts what stepping costs, edges and the ranges of
// their sets, or such an entry is refused). Bound: 1.5 s for parsing 50 entries (measured ~2.5 s).
// Fixed: one pattern's `!(…)` groups share a compile budget counting every edge tried with its set's search (glob-machine.ts › MAX_COMPLEMENT_WORK, searchCost), and repo-config compiles the list once (compilesAsPathMatcher).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { longestStall } from "./longest-stall.js";

/** `count` separate characters from `base` (every other code unit), each a range of its own in a class. */
function separate(count: number, base: number): string {
  let text = "";
  for (let i = 0; i < count; i += 1) text += String.fromCharCode(base + 2 * i);
  return text;
}

const entries = Array.from({ length: 50 }, (_, k) => `!(*[${separate(978, 0x100 + 2 * k)}]??)`);
const yaml = `protected_paths:\n${entries.map((entry) => `  - ${JSON.stringify(entry)}`).join("\n")}\n`;

describe("protected_paths entries negating a class of many separate characters", () => {
  it("are parsed without holding the event loop", async () => {
    let ok: boolean | undefined;
    const stall = await longestStall(async () => {
      ok = parseRepoConfig(yaml).ok;
    });
    console.log(`parse: accepted ${ok}, longest stall ${stall.toFixed(0)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 120_000);
});
