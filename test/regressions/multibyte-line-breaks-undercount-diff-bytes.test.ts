// Broken (red team of #20, eleventh pass, publish check): the bytes a change adds are counted per line as
// `line.length + 1` (count-lines.ts › lineDelta, addedBytesOver), one byte for whatever ended the line,
// while `\r\n`, U+2028, U+2029 and NEL, which the same rule counts as line ends, are 2 or 3 bytes. A file
// of 700 U+2028 (2,100 bytes) counts 700; measured: published under `max_diff_bytes: 1000` (the remote
// has the branch). At the default (5 MiB) two 7.5 MiB files of U+2028 (15 MiB, under the 10 MiB file cap)
// pass the same way.
// What should hold: max_diff_bytes counts the bytes a change writes, line breaks included at their real
// size, so nothing over the cap leaves the job without a refusal (publish-repo.ts › inspect).
// Fixed: a line's bytes include its own break's bytes (count-lines.ts › sizedLines).
import { describe, expect, it } from "vitest";
import { publishFixture } from "./publish-fixture.js";

describe("max_diff_bytes: multi-byte line breaks", () => {
  const { publish, remoteHas } = publishFixture("multibyte-breaks");

  it("2,100 bytes of U+2028 under max_diff_bytes 1000: refused, nothing pushed", async () => {
    const { refused, branch } = await publish(
      "for i in $(seq 1 700); do printf '\\342\\200\\250'; done > x && test $(wc -c < x) -eq 2100 && git add x && git commit -qm x",
      { maxDiffBytes: 1000 },
    );
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes/);
    expect(await remoteHas(branch)).toBe(false);
  });
});
