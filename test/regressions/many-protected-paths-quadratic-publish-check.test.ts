// Broken (red team of #20, twentieth pass, publish check): checkPublishedChange keeps one problem per protected path and tests each new one with problems.includes, so a change adding 12,000 small files under .github/workflows (under the 20,000-name history bound) holds the event loop for seconds (quadratic: 10,000 took 2.3 s, 20,000 took 9.2 s on this machine).
// Fixed: problems are a Set, and a refusal names at most 50 of them with a count of the rest
// (check-push-diff.ts › checkPublishedChange, symlinkProblems).
// What should hold: the publish check costs time linear in the change's entries; a refusal for many protected paths is as fast as a refusal for one.
import { describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../src/agent/policy/index.js";
import type { PublishedChange } from "../../src/agent/ports.js";
import { longestStall } from "./longest-stall.js";

function change(count: number): PublishedChange {
  const files = Array.from({ length: count }, (_, i) => ({
    path: `.github/workflows/w${String(i).padStart(6, "0")}.yml`,
    status: "A",
    oldMode: "000000",
    newMode: "100644",
    bytes: 10,
    lines: 1,
    addedBytes: 10,
  }));
  return { from: "a".repeat(40), sha: "b".repeat(40), files, commitFiles: [], commits: 1, lines: count, addedBytes: count * 10, symlinks: null };
}

describe("publish check: many protected paths in one change", () => {
  it("12,000 added workflow files are refused within 1.5 s of event loop", async () => {
    let action = "";
    const stall = await longestStall(async () => {
      action = checkPublishedChange({}, change(12_000)).action;
    });
    expect(action).toBe("refuse");
    expect(stall).toBeLessThan(1500);
  }, 120_000);
});
