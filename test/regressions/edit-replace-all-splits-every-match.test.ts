// Broken (red team of #20, sixteenth pass, tools / Edit): Edit counts and replaces matches by splitting the
// whole file on old_string (edit.ts › countOccurrences, replaceMatches: `text.split(needle)`), once to count
// and once to replace, plus a join, in one synchronous stretch on the Tackle process; with a diff cap set the
// policy's preview (edit.ts › previewEdit) does it all again. An Edit with replace_all whose old_string is
// "\n" on a file of 10 MiB of line breaks (one Bash command writes it) makes ten million strings twice:
// seconds per call, repeatable at will. The fifteenth pass made Read and Edit number lines without strings
// per line (format-lines.ts), but the match count and replacement still build one string per match.
// Fixed: Edit counts with an indexOf loop and replaces at most 100,000 occurrences, and refuses a result
// over the 10 MiB file cap before building it (edit.ts › countOccurrences, overLimits), in the preview too.
// What should hold: a tool call's cost on the Tackle process stays bounded whatever the file holds (count
// matches with indexOf, build the result in one pass or chunks, or refuse past a number of matches).
// The 1.5 s bound is generous for a 2-core machine (an ordinary Edit stalls a few ms).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyEngine } from "../../src/agent/policy/index.js";
import { canonicalAction, coreTools, type Tool } from "../../src/agent/tools/index.js";
import { createHarness, type Harness } from "../unit/tools/helpers.js";
import { longestStall } from "./longest-stall.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const edit = coreTools().find((candidate) => candidate.name === "Edit") as Tool;
const breaks = 10 * 1024 * 1024 - 16;
/** Each break becomes 25 characters: the new file is 250 MiB, which nothing bounds either. */
const widened = `\n${"y".repeat(24)}`;

describe("Edit with replace_all on a file of nothing but line breaks", () => {
  it("the Edit itself holds the event loop under 1.5 s", async () => {
    await h.repo.write("lines.txt", "\n".repeat(breaks));
    let content = "";
    const stall = await longestStall(async () => {
      content = (await edit.execute({ file_path: "lines.txt", old_string: "\n", new_string: widened, replace_all: true }, h.ctx)).content as string;
    });
    console.log(`result ${content.slice(0, 120)}, longest stall ${Math.round(stall)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 300_000);

  it("the policy's preview of it (max_diff_lines set) holds the event loop under 1.5 s", async () => {
    await h.repo.write("lines.txt", "\n".repeat(breaks));
    await h.repo.git("add", "-A");
    await h.repo.git("commit", "-q", "-m", "lines");
    await h.repo.git("branch", "-f", "main");
    const engine = createPolicyEngine({ maxDiffLines: 100_000_000 });
    let decision: unknown;
    const stall = await longestStall(async () => {
      decision = await engine.check(canonicalAction(edit, { file_path: "lines.txt", old_string: "\n", new_string: widened, replace_all: true }), h.ctx);
    });
    console.log(`decision ${JSON.stringify(decision)}, longest stall ${Math.round(stall)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 300_000);
});
