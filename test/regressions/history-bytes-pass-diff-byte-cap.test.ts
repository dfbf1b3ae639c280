import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { policyOf, publishFixture } from "./publish-fixture.js";

describe("max_diff_bytes: bytes hidden in the history", () => {
  const { publish: run, remoteHas, commitToBase } = publishFixture("history-bytes");
  /** A job that commits what `command` writes, then publishes under `yaml` (the repo config's keys as the host reads them). */
  const publish = (command: string, yaml: string) => run(`${command} && git add -A && git commit -qm change`, policyOf(yaml));

  const CONFIG = "max_diff_lines: 10\nmax_diff_bytes: 1000\n";

  it("bytes added in one commit and removed in the next: refused, nothing pushed", async () => {
    const { refused, branch } = await publish(
      "head -c 4096 /dev/zero | tr '\\0' y > junk.txt && git add -A && git commit -qm add && git rm -q junk.txt && echo 'export const z = 3;' >> src/app.ts",
      CONFIG,
    );
    expect((refused as Error | null)?.message).toMatch(/over the repository's max_diff_bytes of 1000/);
    expect(await remoteHas(branch)).toBe(false);
  });

  it("many small files, each added then removed over several commits: refused", async () => {
    const steps = Array.from(
      { length: 4 },
      (_, i) =>
        `head -c 400 /dev/zero | tr '\\0' ${"abcd"[i]} > f${i}.txt && git add -A && git commit -qm f${i} && git rm -q f${i}.txt && git commit -qm rm${i}`,
    );
    const { refused, branch } = await publish(`${steps.join(" && ")} && echo 'export const z = 3;' >> src/app.ts`, CONFIG);
    expect((refused as Error | null)?.message).toMatch(/over the repository's max_diff_bytes of 1000/);
    expect(await remoteHas(branch)).toBe(false);
  });

  it("a line rewritten in a second commit counts once per version it adds, an unchanged line once: an honest two-commit change passes", async () => {
    const { refused, branch } = await publish(
      "echo 'export const a = 1;' >> src/app.ts && git add -A && git commit -qm one && echo 'export const b = 2;' >> src/app.ts",
      CONFIG,
    );
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });

  it("one line changed in each of two commits of a 6 MiB file passes the 5 MiB default: a version is not counted whole", async () => {
    await commitToBase("data.txt", "row of data\n".repeat(550_000));
    const { refused, branch } = await publish(
      "sed -i '1s/.*/first row/' data.txt && git commit -qam one && sed -i '2s/.*/second row/' data.txt",
      "max_diff_lines: 10\n",
    );
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });

  it("a bad max_diff_bytes is a config error naming the key", () => {
    const parsed = parseRepoConfig("max_diff_bytes: lots\n");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toMatch(/max_diff_bytes/);
  });
});
