// Broken (red team of #20, eleventh pass, publish check): the bytes a change adds are counted per line as
// `line.length + 1` (count-lines.ts › lineDelta, addedBytesOver), one byte for whatever ended the line,
// while `\r\n`, U+2028, U+2029 and NEL, which the same rule counts as line ends, are 2 or 3 bytes. A file
// of 700 U+2028 (2,100 bytes) counts 700; measured: published under `max_diff_bytes: 1000` (the remote
// has the branch). At the default (5 MiB) two 7.5 MiB files of U+2028 (15 MiB, under the 10 MiB file cap)
// pass the same way.
// What should hold: max_diff_bytes counts the bytes a change writes, line breaks included at their real
// size, so nothing over the cap leaves the job without a refusal (publish-repo.ts › inspect).
// Fixed: a line's bytes include its own break's bytes (count-lines.ts › sizedLines).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("max_diff_bytes: multi-byte line breaks", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];

  beforeAll(async () => {
    base = tempDir("multibyte-breaks");
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  const remoteHas = async (branch: string) => (await git(remote.remote, ["branch", "--list", branch])).trim() !== "";

  it("2,100 bytes of U+2028 under max_diff_bytes 1000: refused, nothing pushed", async () => {
    const branch = "tackle/issue-802";
    const workspace = await cache.prepare({
      jobId: "multibyte-breaks-1",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/multibyte-breaks",
      branch,
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    const run = await workspace.exec.run(
      "for i in $(seq 1 700); do printf '\\342\\200\\250'; done > x && test $(wc -c < x) -eq 2100 && git add x && git commit -qm x",
      { timeoutMs: 120_000 },
    );
    expect(run.exitCode, run.output).toBe(0);
    const policy: PolicyConfig = { maxDiffBytes: 1000 };
    const refused = await workspace.push({ verify: (change) => checkPublishedChange(policy, change), token: "t" }).then(
      () => null,
      (error: unknown) => error,
    );
    expect((refused as Error | null)?.message).toMatch(/max_diff_bytes/);
    expect(await remoteHas(branch)).toBe(false);
  });
});
