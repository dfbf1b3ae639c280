// max_diff_bytes measured the net change only (base..tip): a commit that added bytes and a later commit that
// removed them counted 0, yet every commit is pushed, so the remote's history (and every clone after a
// merge) got all of it: with the default 5 MiB cap, up to the 512 MiB pack limit of files each under the
// 10 MiB file limit. The bytes a change adds are now the lines any new commit's version of a path adds
// over the start's (each line once per path, however many commits carry it), so an honest change made in
// several commits counts what it wrote once, and bytes hidden in the history count too.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("max_diff_bytes: bytes hidden in the history", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let jobs = 0;

  beforeAll(async () => {
    base = tempDir("history-bytes");
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  /** A job that commits what `command` writes, then publishes under `config` (the repo config's keys as the host reads them). */
  async function publish(command: string, yaml: string): Promise<{ refused: unknown; branch: string }> {
    jobs += 1;
    const branch = `tackle/issue-${300 + jobs}`;
    const workspace = await cache.prepare({
      jobId: `history-bytes-${jobs}`,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/history-bytes",
      branch,
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    const run = await workspace.exec.run(`${command} && git add -A && git commit -qm change`, { timeoutMs: 60_000 });
    expect(run.exitCode).toBe(0);
    const parsed = parseRepoConfig(yaml);
    if (!parsed.ok) throw new Error(parsed.problems.join("; "));
    const policy: PolicyConfig = { maxDiffLines: parsed.config.max_diff_lines, maxDiffBytes: parsed.config.max_diff_bytes };
    const refused = await workspace.push({ verify: (change) => checkPublishedChange(policy, change), token: "t" }).then(
      () => null,
      (error: unknown) => error,
    );
    return { refused, branch };
  }

  const remoteHas = async (branch: string) => (await git(remote.remote, ["branch", "--list", branch])).trim() !== "";

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
    await git(remote.work, ["checkout", "--quiet", "main"]);
    writeFileSync(path.join(remote.work, "data.txt"), "row of data\n".repeat(550_000));
    await git(remote.work, ["add", "data.txt"]);
    await git(remote.work, ["commit", "--quiet", "-m", "maintainer: data"]);
    await git(remote.work, ["push", "--quiet", "origin", "main:main"]);
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
