// Broken (red team of #20, fifteenth pass, publish check): inspect reads every version of every changed
// file up to the 10 MiB file cap and counts it on the event loop (publish-repo.ts › inspect → measure →
// count-lines.ts › lineDelta, then historyAddedBytes → addedBytesOver), one JavaScript string and Map step
// per line, before any cap is judged. A file of 10 MiB − 1 of line breaks (it packs to ~10 KB) is one
// allowed-size file with 10,485,759 empty lines: measured a 13.5 s stall of one push on a 2-core machine (lineDelta ~6.6 s,
// addedBytesOver ~6.5 s), the push then refused for its size; the 20,000-entry bound allows
// many such files (or versions of one) in one publish. Every other job, webhook and dashboard request waits.
// Fixed: lines are counted as 64-bit keys sorted natively (count-lines.ts), and one publish check compares
// at most 64 MiB and 2,000,000 lines on the host (LineBudget); past that, sizes count as upper bounds.
// What should hold: the publish check's cost on the Tackle process stays bounded whatever the files hold
// (count lines off the event loop or in slices that yield, or refuse by size before a per-line walk).
// The 1.5 s bound is generous for a 2-core machine (an ordinary publish stalls a few ms), as in
// empty-commits-quadratic-publish-check.test.ts.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";
import { longestStall } from "./longest-stall.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("publish check: a file of nothing but line breaks", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];

  beforeAll(async () => {
    base = tempDir("newline-file");
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  it("holds the event loop under 1.5 s", async () => {
    const workspace = await cache.prepare({
      jobId: "newline-file-1",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/newline-file",
      branch: "tackle/issue-815",
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    // 10 MiB - 1 bytes: under the 10 MiB file cap, so the host reads and counts it.
    const run = await workspace.exec.run("head -c 10485759 /dev/zero | tr '\\0' '\\n' > lines.txt && git add lines.txt && git commit -qm lines", {
      timeoutMs: 120_000,
    });
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
