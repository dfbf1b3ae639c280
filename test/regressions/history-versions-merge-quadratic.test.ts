// Broken (red team of #20, sixteenth pass, publish check / history bytes): the bytes a branch's history adds
// are measured per path over every version a new commit holds (publish-repo.ts › historyAddedBytes →
// count-lines.ts › addedBytesOver), and the versions' surpluses are folded one version at a time into a
// growing list (mergeSurplus copies the whole list, key by key into JS arrays, for each version). When each
// version adds lines the others lack, the cost is versions² × lines per version, outside the LineBudget
// (which counts each line once). 40 commits, each rewriting one file as 15,000 lines of its own (about
// 4.5 MB of history in all), hold the event loop for seconds; 1,000 commits of 1,000 lines took 214 s in
// addedBytesOver alone.
// Fixed: the versions' surplus lists are typed arrays merged in pairs, level by level (count-lines.ts ›
// addedBytesOver): each entry is copied log2(versions) times, not once per version.
// What should hold: the publish check's cost on the Tackle process is bounded by what the pushed history
// holds, not its square (merge all versions' surpluses at once: sort every version's surplus keys together,
// or a k-way merge, and take the maximum per key).
// The 1.5 s bound is generous for a 2-core machine (an ordinary push check stalls a few ms).
import { describe, expect, it } from "vitest";
import { publishFixture } from "./publish-fixture.js";
import { longestStall } from "./longest-stall.js";

describe("publish check: many versions of one file, each adding its own lines", () => {
  const fixture = publishFixture("history-versions");

  it("holds the event loop under 1.5 s", async () => {
    const script = 'for v in $(seq 1 40); do seq 1 15000 | sed "s/^/$v./" > f.txt && git add f.txt && git commit -qm "v$v" || exit 1; done';
    let result: Awaited<ReturnType<typeof fixture.publish>> | undefined;
    const stall = await longestStall(async () => {
      result = await fixture.publish(script, {});
    });
    console.log(`refused: ${String(result?.refused)}, longest stall ${Math.round(stall)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 600_000);
});
