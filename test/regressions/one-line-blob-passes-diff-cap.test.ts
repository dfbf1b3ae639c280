// The diff caps counted lines only: 9 MiB on one line (under the 10 MiB file limit) was one line
// against `max_diff_lines: 10`, and was pushed; no cap bounded a change's size. `max_diff_bytes`
// (default 5 MiB) now caps the bytes a published change adds, measured by the host from its own
// objects, and a refusal names it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { isTackleError } from "../../src/errors/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("max_diff_bytes: the size of a published change", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let jobs = 0;

  beforeAll(async () => {
    base = tempDir("one-line-blob");
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
    const branch = `tackle/issue-${200 + jobs}`;
    const workspace = await cache.prepare({
      jobId: `blob-${jobs}`,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/blob",
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
    await git(remote.work, ["checkout", "--quiet", "main"]);
    writeFileSync(path.join(remote.work, "data.txt"), "row of data\n".repeat(550_000));
    await git(remote.work, ["add", "data.txt"]);
    await git(remote.work, ["commit", "--quiet", "-m", "maintainer: data"]);
    await git(remote.work, ["push", "--quiet", "origin", "main:main"]);
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
