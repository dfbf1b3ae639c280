// Broken (red team of #20, tenth pass, publish checks): max_diff_bytes counts only the lines of file
// contents a change adds. Everything else a push carries into the remote's history is free: a commit
// message of 200 KB (`git commit -F`), or 400 new empty files whose 200-character names make a tree of
// ~90 KB, each published under `max_diff_bytes: 1000` with a one-line change beside it. Measured: both
// pushed (the remote has the branch), where the doc says the bytes a change adds count "as they reach
// the remote's history" (history-bytes-pass-diff-byte-cap closed the same gap for file versions).
// What should hold: every byte a publish writes to the remote's history that the agent chose (commit
// messages, author fields, tree entries' names) counts against max_diff_bytes, so nothing over the cap
// leaves the job without a refusal (checkPublishedChange on the host's objects, publish-repo.ts › inspect).
// Fixed: each new commit object counts whole and each added path its name (publish-repo.ts › metadataBytes, added to PublishedChange.addedBytes).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("max_diff_bytes: bytes outside file contents", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let jobs = 0;

  beforeAll(async () => {
    base = tempDir("commit-metadata-bytes");
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  async function publish(command: string): Promise<{ refused: unknown; branch: string }> {
    jobs += 1;
    const branch = `tackle/issue-${700 + jobs}`;
    const workspace = await cache.prepare({
      jobId: `commit-metadata-${jobs}`,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/commit-metadata",
      branch,
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    const run = await workspace.exec.run(command, { timeoutMs: 120_000 });
    expect(run.exitCode, run.output).toBe(0);
    const policy: PolicyConfig = { maxDiffLines: 10, maxDiffBytes: 1000 };
    const refused = await workspace.push({ verify: (change) => checkPublishedChange(policy, change), token: "t" }).then(
      () => null,
      (error: unknown) => error,
    );
    return { refused, branch };
  }

  const remoteHas = async (branch: string) => (await git(remote.remote, ["branch", "--list", branch])).trim() !== "";

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
