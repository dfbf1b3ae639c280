// Broken (red team of #20, eleventh pass, publish check): inspect compares every new commit's whole tree
// with the start (`diff-tree --stdin`, publish-repo.ts › commitTrees) and handles each entry of the answer
// on the event loop (parseRawDiff, `changed(perCommit)`, checkPublishedChange) before any cap is judged,
// so its cost is commits × paths the branch changes: one commit adding 1,000 empty files, then 500 empty
// commits (`commit-tree` with the same tree, ~120 KB of history) make 500,000 entries. Measured: the
// event loop held for 12 s (2,000 files × 1,000 commits: 49 s), and the branch was then pushed under the
// default policy; every other job, webhook and dashboard request waits meanwhile.
// What should hold: the publish check's cost on the Tackle process is bounded by what the pushed history
// holds (each distinct tree once, or a cap on commits × paths refused before it is read), not its square.
// Fixed: each distinct tree is compared with the start once (publish-repo.ts › oneCommitPerTree), and past 20,000 entries the publish is refused before they are parsed (withinHistoryBound).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { longestStall } from "./longest-stall.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("publish check: many empty commits over many files", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];

  beforeAll(async () => {
    base = tempDir("empty-commits");
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  it("holds the event loop under 1.5 s", async () => {
    const workspace = await cache.prepare({
      jobId: "empty-commits-1",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/empty-commits",
      branch: "tackle/issue-803",
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    const script = [
      "mkdir f && cd f && seq -w 1 1000 | xargs touch && cd .. && git add -A && git commit -qm files",
      'T=$(git rev-parse "HEAD^{tree}"); C=$(git rev-parse HEAD); for i in $(seq 1 500); do C=$(git commit-tree "$T" -p "$C" -m e); done; git reset -q "$C"',
    ].join(" && ");
    const run = await workspace.exec.run(script, { timeoutMs: 300_000 });
    expect(run.exitCode, run.output).toBe(0);
    const policy: PolicyConfig = {};
    const started = performance.now();
    const stall = await longestStall(() =>
      workspace.push({ verify: (change) => checkPublishedChange(policy, change), token: "t" }).catch((error: unknown) => error),
    );
    console.log(`push check: ${Math.round(performance.now() - started)} ms, longest stall ${Math.round(stall)} ms`);
    expect(stall).toBeLessThan(1_500);
  }, 600_000);
});
