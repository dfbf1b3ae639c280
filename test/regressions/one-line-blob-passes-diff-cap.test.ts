import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { isTackleError } from "../../src/errors/index.js";
import { policyOf, publishFixture } from "./publish-fixture.js";

describe("max_diff_bytes: the size of a published change", () => {
  const { publish: run, remoteHas, commitToBase } = publishFixture("one-line-blob");
  /** A job that commits what `command` writes, then publishes under `yaml` (the repo config's keys as the host reads them). */
  const publish = (command: string, yaml: string) => run(`${command} && git add -A && git commit -qm change`, policyOf(yaml));

  it("9 MiB on one line, max_diff_lines: 10 and the default max_diff_bytes: refused by size, nothing pushed", async () => {
    const { refused, branch } = await publish("head -c 9437184 /dev/zero | tr '\\0' x > blob.js", "max_diff_lines: 10\n");
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toMatch(/adds 94\d{5} bytes, over the repository's max_diff_bytes of 5242880/);
    expect(await remoteHas(branch)).toBe(false);
  });

  it("a repository's own max_diff_bytes: 2 KB of one line over 1000 is refused; a small change passes", async () => {
    const big = await publish("head -c 2048 /dev/zero | tr '\\0' y > line.txt", "max_diff_lines: 10\nmax_diff_bytes: 1000\n");
    expect((big.refused as Error | null)?.message).toMatch(/over the repository's max_diff_bytes of 1000/);
    expect(await remoteHas(big.branch)).toBe(false);
    const small = await publish("echo 'export const z = 3;' >> src/app.ts", "max_diff_lines: 10\nmax_diff_bytes: 1000\n");
    expect(small.refused).toBeNull();
    expect(await remoteHas(small.branch)).toBe(true);
  });

  it("counts only the lines a change adds: one line changed in a 6 MiB file passes the 5 MiB default", async () => {
    // The base gets the big file first, as a maintainer's commit.
    await commitToBase("data.txt", "row of data\n".repeat(550_000));
    const { refused, branch } = await publish("sed -i '1s/.*/first row/' data.txt", "max_diff_lines: 10\n");
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });

  it("a bad max_diff_bytes is a config error naming the key", () => {
    const parsed = parseRepoConfig("max_diff_bytes: lots\n");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toMatch(/max_diff_bytes/);
  });
});
