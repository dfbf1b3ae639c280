// Broken (red team of #20, twelfth pass, publish check): historyAddedBytes (publish-repo.ts) groups
// every version by `entry.path`, a string git's raw bytes were decoded into as UTF-8, and counts each
// line once per path (addedBytesOver). Names that differ only in invalid UTF-8 bytes (`f\x80` …
// `f\xff`: 128 distinct files, index-pack --strict accepts them) all decode to `f\uFFFD`, so they are
// one "path": 128 files of one shared 10,000-byte line plus a line of their own were measured as about
// 11 KB and published under `max_diff_bytes: 20000` (1.28 MB of new lines, the remote has the branch);
// the same files named `f128` … `f255` are refused. metadataBytes' name set collapses the same way.
// What should hold: each path git lists is measured on its own (keyed by its bytes, or refused when its
// name is not UTF-8, as published-symlinks.ts › assertTreeSymlinks does for links): nothing over
// max_diff_bytes leaves the job.
// Fixed: a path or added name that is not valid UTF-8 (read as U+FFFD) refuses the publish (publish-repo.ts › inspect).
import { describe, expect, it } from "vitest";
import { publishFixture } from "./publish-fixture.js";

const policy = { maxDiffLines: 1000, maxDiffBytes: 20_000 };
/** 128 files: one shared 10,000-byte line, and one line of their own; `$1` makes the name from `i`. */
const files = (name: string) =>
  [
    "L=$(head -c 10000 /dev/zero | tr '\\0' a)",
    `for i in $(seq 128 255); do n=${name}; printf '%s\\nu%s\\n' "$L" "$i" > "$n"; done`,
    "git add -A && git commit -qm files",
    "test $(git diff-tree -r --name-only HEAD~1 HEAD | wc -l) -eq 128",
  ].join(" && ");

describe("max_diff_bytes: names that are not UTF-8", () => {
  const fixture = publishFixture("invalid-utf8-names");

  it("the same 128 files with plain names are refused (as documented)", async () => {
    const { refused, branch } = await fixture.publish(files('"f$i"'), policy);
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes/);
    expect(await fixture.remoteHas(branch)).toBe(false);
  });

  it("128 files named f\\x80 … f\\xff: refused, nothing pushed", async () => {
    const { refused, branch } = await fixture.publish(files('"f$(printf "\\\\x$(printf %x $i)")"'), policy);
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes|UTF-8/);
    expect(await fixture.remoteHas(branch)).toBe(false);
  });
});
