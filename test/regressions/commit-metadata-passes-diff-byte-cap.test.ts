import { describe, expect, it } from "vitest";
import { publishFixture } from "./publish-fixture.js";

describe("max_diff_bytes: bytes outside file contents", () => {
  const { publish: run, remoteHas } = publishFixture("commit-metadata");
  const publish = (command: string) => run(command, { maxDiffLines: 10, maxDiffBytes: 1000 });

  it("a 200 KB commit message beside a one-line change: refused, nothing pushed", async () => {
    const { refused, branch } = await publish(
      "head -c 200000 /dev/zero | tr '\\0' m > /tmp/msg && echo 'export const z = 3;' >> src/app.ts && git add -A && git commit -q -F /tmp/msg",
    );
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes/);
    expect(await remoteHas(branch)).toBe(false);
  });

  it("400 empty files with 200-character names beside a one-line change: refused, nothing pushed", async () => {
    const { refused, branch } = await publish(
      "mkdir d && for i in $(seq 1 400); do : > \"d/$(printf '%0200d' $i)\"; done && echo 'export const z = 4;' >> src/app.ts && git add -A && git commit -qm files",
    );
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes/);
    expect(await remoteHas(branch)).toBe(false);
  });
});
