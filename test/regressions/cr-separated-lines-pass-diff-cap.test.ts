// The host's publish check counted a change's lines with git's numstat, which ends a line at `\n`
// only: 5,000 statements separated by `\r` (or U+2028, U+2029, which JavaScript engines and
// editors also break lines at) were one line against `max_diff_lines: 10`, and were pushed. Lines are
// now counted by one rule for the estimate and the publish check (src/util/count-lines.ts):
// `\n`, `\r\n`, a lone `\r`, U+2028 and U+2029 each end a line.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../src/agent/policy/index.js";
import { isTackleError } from "../../src/errors/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const verify = (change: Parameters<typeof checkPublishedChange>[1]) => checkPublishedChange({ maxDiffLines: 10 }, change);

describe("the publish check's line count, with other line separators", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let jobs = 0;

  beforeAll(async () => {
    base = tempDir("cr-separated");
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  /** A job that commits what `script` writes (node, inside the sandbox), then publishes with max_diff_lines: 10. */
  async function publish(script: string): Promise<{ refused: unknown; branch: string }> {
    jobs += 1;
    const branch = `tackle/issue-${100 + jobs}`;
    const workspace = await cache.prepare({
      jobId: `cr-${jobs}`,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/cr",
      branch,
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    const run = await workspace.exec.run(`node -e '${script}' && git add -A && git commit -qm change`, { timeoutMs: 60_000 });
    expect(run.output).toBe("");
    expect(run.exitCode).toBe(0);
    const refused = await workspace.push({ verify, token: "t" }).then(
      () => null,
      (error: unknown) => error,
    );
    return { refused, branch };
  }

  async function remoteHas(branch: string): Promise<boolean> {
    return (await git(remote.remote, ["branch", "--list", branch])).trim() !== "";
  }

  for (const [name, separator] of [
    ["\\r", "\\r"],
    ["U+2028", "\\u2028"],
    ["U+2029", "\\u2029"],
  ] as const) {
    it(`5,000 statements separated by ${name} are 5,000 lines: refused, nothing pushed`, async () => {
      const { refused, branch } = await publish(
        `require("fs").writeFileSync("src/evil.js", Array.from({ length: 5000 }, (_, i) => "x" + i + "()").join("${separator}"))`,
      );
      expect(isTackleError(refused, "push_refused")).toBe(true);
      expect((refused as Error).message).toMatch(/the branch's diff is 500\d lines, over the repository's max_diff_lines of 10/);
      expect(await remoteHas(branch)).toBe(false);
    });
  }

  it("a file with \\r\\n line ends counts each line once: five lines pass", async () => {
    const { refused, branch } = await publish('require("fs").writeFileSync("src/crlf.txt", "a\\r\\nb\\r\\nc\\r\\nd\\r\\ne\\r\\n")');
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });
});
