// Broken (red team of #20, fourteenth pass, glob machine's move cache): a step is meant to cost about
// 5 ns (2,000,000 steps "about 10 ms", docs/security-model.md), but a move the cache has not met builds
// its set in `Machine.setOf` (src/util/glob-machine.ts: filter, sort, `states.join(",")` as a Map key,
// the key hashed) and counts only the states reached. A repository's list of 28 entries
// `{*a?????????z,*b?????????z,…}` (75 alternatives, 976 characters each, 59,024 states and edges in
// all, accepted) keeps ~375 live states per machine whose set changes with every character, so nearly
// every move misses: a 40-character name spends 1.87 million steps (under MAX_STEPS_PER_PATH, so it is
// answered, not protected) and took 73-80 ms measured here (~40 ns a step; the code before the cache
// 20-30 ms). Publishing 80 such file names (`check-push-diff.ts` filters every changed file
// synchronously) held the event loop 4.4 s in this test, where the documented bound gives 0.8 s. The same list also
// kept 136 MB of cached sets alive (documented: "about 150 KB at most, 30 MB for a list of 200 entries").
//
// What should hold: one path against the list costs about what MAX_STEPS_PER_PATH says (10 ms), so 80
// paths hold the event loop well under 1.5 s: a miss counts what building and keying its set costs, or
// a path past the budget is protected untested (fail closed).
// Fixed: a move the cache has not met counts building its set's key (glob-machine.ts › Machine.run), and the cache holds at most 16,384 states per machine (MAX_CACHED_STATES); these paths now spend their budget (250,000 steps, MAX_STEPS_PER_PATH) and are protected untested.
import { describe, expect, it } from "vitest";
import { createProtectedPaths } from "../../src/agent/policy/protected-paths.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { longestStall } from "./longest-stall.js";

const letters = "abcdefghij";
const entry = (k: number) => `{${Array.from({ length: 75 }, (_, i) => `*${letters[(i + k) % 10]}?????????z`).join(",")}}`;
const hostile = Array.from({ length: 28 }, (_, k) => entry(k));
const yaml = `protected_paths:\n${hostile.map((glob) => `  - '${glob}'`).join("\n")}\n`;

let seed = 20;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
const names = Array.from({ length: 80 }, () => Array.from({ length: 40 }, () => letters[next() % 10]).join(""));

describe("a protected_paths list whose every move misses the cache", () => {
  it("tests 80 changed paths within the documented per-path time", async () => {
    expect(parseRepoConfig(yaml).ok).toBe(true);
    const protectedPaths = createProtectedPaths(hostile);
    let touched: string[] = [];
    const stall = await longestStall(async () => {
      touched = names.filter((name) => protectedPaths.matches(name));
    });
    // No name matches an entry: a protected one is one past the step budget, protected untested.
    console.log(`${touched.length} of 80 protected past the step budget, longest stall ${stall.toFixed(0)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 120_000);
});
