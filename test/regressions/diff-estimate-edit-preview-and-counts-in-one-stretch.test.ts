// Broken (red team of #20, sixteenth pass, publish check's estimate): an Edit's estimate
// (policy-engine.ts › checkDiffSize → diff-size-tracker.ts › project) runs, with no await between them when
// the target is the only file the tracker remembers: the Edit's preview (edit.ts › previewEdit: split and
// join over the whole file), the target's refresh (count-lines.ts › lineDelta of the content at the
// measurement against the file now) and the write's own lineDelta. Each lineDelta has its own budget
// (64 MiB / 2,000,000 lines, "about 0.2 s": 0.4–0.85 s here), and the write's side is not held to the
// 10 MiB file cap: an Edit with replace_all widens every line of a 10 MB file to 57 MB. Two Edits of a
// file of 1,000,000 short lines (one Bash command writes it): the second holds the event loop ~2 s.
// Fixed: one line budget per estimate, shared by every file it compares (diff-size-tracker.ts ›
// estimateBudget), and an Edit preview over Edit's limits is not estimated (edit.ts › previewEdit).
// What should hold: one check's work on the Tackle process is bounded as a whole (one budget across the
// lineDeltas of a projection, the preview held to the file cap, or a yield between steps).
// The 1.5 s bound is generous for a 2-core machine (an ordinary Edit's estimate stalls a few ms).
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

/** 1,000,000 distinct 9-character lines (10,000,000 bytes, under the 10 MiB cap), each padded with dots. */
function lines(): string {
  const parts: string[] = [];
  for (let i = 0; i < 1_000_000; i += 1) parts.push(`t${i.toString(36)}`.padEnd(9, "."));
  return `${parts.join("\n")}\n`;
}

describe("diff estimate: two Edits with replace_all of a file of short lines", () => {
  it("holds the event loop under 1.5 s for the second Edit's check", async () => {
    await h.repo.write("t.txt", lines());
    await h.repo.git("add", "-A");
    await h.repo.git("commit", "-q", "-m", "file");
    await h.repo.git("branch", "-f", "main");
    const engine = createPolicyEngine({ maxDiffLines: 100_000_000 });
    // Every line changes: the file is remembered as it was at the measurement.
    const first = { file_path: "t.txt", old_string: ".", new_string: ",", replace_all: true };
    expect((await engine.check(canonicalAction(edit, first), h.ctx)).action).toBe("allow");
    await edit.execute(first, h.ctx);
    // Every line widened: 57 MB after the Edit.
    const second = { file_path: "t.txt", old_string: "\n", new_string: `${"w".repeat(47)}\n`, replace_all: true };
    let decision: unknown;
    const stall = await longestStall(async () => {
      decision = await engine.check(canonicalAction(edit, second), h.ctx);
    });
    console.log(`decision ${JSON.stringify(decision)}, longest stall ${Math.round(stall)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 300_000);
});
