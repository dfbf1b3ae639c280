// The Glob tool compiled the model's pattern into a regular expression (`*` as `[^/]*`) and tested every
// listed path with it in the Tackle process. A path that fails tries every way of splitting its name
// among the pattern's `*`: the model writes `x/aaa…a` and globs `x/*a*a*a*a*a*a*a*a*a*b`, and the event
// loop is held, every job, webhook and lock renewal with it: 0.5 s on a 30-character name, 2 s on 40,
// 23 s on 50, and each more `*` multiplies it (a dozen on a 200-character name: longer than the host lives).
// No repository config is needed: the pattern and the file are the model's.
//
// Fixed in the one glob compiler (util/glob-to-regexp.ts, compileGlob, which the policy's sensitive-path
// globs use too): the glob is a state machine run over the path once, in time linear in both lengths.
//
// No clock: on the code before, the first case (a 60-character name) takes about two minutes, past the test's timeout.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matchesGlob } from "../../src/util/glob-machine.js";
import { callTool, createHarness, type Harness } from "../unit/tools/helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("Glob on a pattern of many wildcards and a long name", () => {
  it("answers at once: no file matches", async () => {
    await mkdir(path.join(h.repo.root, "x"));
    await writeFile(path.join(h.repo.root, "x", "a".repeat(60)), "");
    const result = await callTool(h.ctx, "Glob", { pattern: `x/${"*a".repeat(8)}*b` });
    expect(result.content).toMatch(/^No files match/);
  });

  it("still matches what it matched: wildcards, globstars, a trailing /**", () => {
    const many = `x/${"*a".repeat(4)}*`;
    expect(matchesGlob(`x/${"a".repeat(12)}`, `${many}b`)).toBe(false);
    expect(matchesGlob(`x/${"a".repeat(12)}b`, `${many}b`)).toBe(true);
    expect(matchesGlob(`x/${"ab".repeat(4)}`, many)).toBe(true);
    expect(matchesGlob(`x/${"ab".repeat(3)}`, many)).toBe(false);
    expect(matchesGlob(`${"a/".repeat(5)}b.ts`, "**/a/**/a/**/*.{js,ts}")).toBe(true);
    expect(matchesGlob(".github/workflows", ".github/workflows/**")).toBe(true);
    expect(matchesGlob(".github/workflowsx", ".github/workflows/**")).toBe(false);
  });
});
