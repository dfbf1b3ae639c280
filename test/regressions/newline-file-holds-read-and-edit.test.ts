// Broken (found beside the red team's fifteenth pass, tools): Read split the whole file into lines
// (`split(/\r\n|\r|\n/)`, up to its 32 MiB cap) to show 2,000 of them, and Edit split everything
// before the match to number the excerpt, and the whole file again for it: on a file of nothing but
// line breaks, one string per line on the Tackle process, seconds per call, repeatable at will.
// Fixed: only the lines shown become strings; the rest is a scan of character codes
// (format-lines.ts › linesBetween, countChar).
// What should hold: a tool call's cost on the Tackle process stays bounded whatever the file holds.
// The 1.5 s bound is generous for a 2-core machine (an ordinary Read stalls a few ms).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { coreTools, type Tool } from "../../src/agent/tools/index.js";
import { createHarness, type Harness } from "../unit/tools/helpers.js";
import { longestStall } from "./longest-stall.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const tool = (name: string) => coreTools().find((candidate) => candidate.name === name) as Tool;

describe("Read and Edit on a file of nothing but line breaks", () => {
  it("Read of the last lines of 32 MiB of breaks holds the event loop under 1.5 s, and numbers them right", async () => {
    const lines = 32 * 1024 * 1024 - 8;
    await h.repo.write("lines.txt", `${"\r\n".repeat(lines / 2)}${"\n".repeat(3)}end`);
    const total = lines / 2 + 4;
    let content = "";
    const stall = await longestStall(async () => {
      content = (await tool("Read").execute({ file_path: "lines.txt", offset: total - 1, limit: 10 }, h.ctx)).content as string;
    });
    expect(content).toBe(`${String(total - 1).padStart(6)}\t\n${String(total).padStart(6)}\tend`);
    expect(stall).toBeLessThan(1_500);
  }, 300_000);

  it("Edit at the end of 10 MiB of breaks holds the event loop under 1.5 s, and numbers the excerpt right", async () => {
    const breaks = 10 * 1024 * 1024 - 16;
    await h.repo.write("lines.txt", `${"\n".repeat(breaks)}last`);
    let content = "";
    const stall = await longestStall(async () => {
      content = (await tool("Edit").execute({ file_path: "lines.txt", old_string: "last", new_string: "final" }, h.ctx)).content as string;
    });
    expect(content).toContain(`${String(breaks + 1).padStart(6)}\tfinal`);
    expect(stall).toBeLessThan(1_500);
  }, 300_000);
});
