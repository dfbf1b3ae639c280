// Broken (red team of #20, eleventh pass, publish check): metadataBytes counts each new commit object
// and the name of each path a commit adds, as `diff-tree -r` lists them. A tree entry naming the empty
// tree (an empty directory, made with `git mktree` + `commit-tree`, which `index-pack --strict` accepts)
// is no path `diff-tree -r` lists, so its name is free: 400 empty directories with 200-character names
// (a ~90 KB tree object) beside a one-line change, published under `max_diff_bytes: 1000` (the remote
// has the branch). The same bytes as 400 empty files are refused (commit-metadata-passes-diff-byte-cap).
// What should hold: every byte a publish writes to the remote's history that the agent chose counts
// against max_diff_bytes, tree entries included (publish-repo.ts › inspect, metadataBytes): nothing over
// the cap leaves the job without a refusal.
// Fixed: the names of every path the new commits add, directories included, come from `diff-tree -t` (publish-repo.ts › addedNames) and count against max_diff_bytes.
import { describe, expect, it } from "vitest";
import { publishFixture } from "./publish-fixture.js";

describe("max_diff_bytes: names of empty directories", () => {
  const { publish, remoteHas } = publishFixture("empty-dirs-bytes");

  it("400 empty directories with 200-character names beside a one-line change: refused, nothing pushed", async () => {
    const script = [
      "echo 'export const z = 5;' >> src/app.ts && git add -A && git commit -qm change",
      "E=$(git hash-object -t tree -w /dev/null)",
      "T=$( (git ls-tree HEAD; for i in $(seq 1 400); do printf '040000 tree %s\\t%s\\n' \"$E\" \"$(printf '%0200d' $i)\"; done) | git mktree)",
      'C=$(git commit-tree "$T" -p HEAD -m dirs)',
      'git reset -q "$C"',
      'test $(git cat-file -s "$T") -gt 90000',
    ].join(" && ");
    const { refused, branch } = await publish(script, { maxDiffLines: 10, maxDiffBytes: 1000 });
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes/);
    expect(await remoteHas(branch)).toBe(false);
  });
});
