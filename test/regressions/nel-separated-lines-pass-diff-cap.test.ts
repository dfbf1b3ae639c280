// Lines were counted as ending at \n, \r\n, a lone \r, U+2028 and U+2029, not at NEL (U+0085), which
// YAML 1.1 parsers (PyYAML's reader, among others) and several editors also break lines at: 5,000 YAML
// settings separated by NEL were one line against `max_diff_lines: 10`, and were pushed. NEL now ends a
// line too, by the same one rule (src/util/count-lines.ts) for the estimate and the publish check.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../src/agent/policy/index.js";
import { isTackleError } from "../../src/errors/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const verify = (change: Parameters<typeof checkPublishedChange>[1]) => checkPublishedChange({ maxDiffLines: 10 }, change);

describe("the publish check's line count, with NEL", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let jobs = 0;

  beforeAll(async () => {
    base = tempDir("nel-separated");
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
    const branch = `tackle/issue-${400 + jobs}`;
    const workspace = await cache.prepare({
      jobId: `nel-${jobs}`,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/nel",
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

  it("5,000 YAML settings separated by NEL (U+0085) are 5,000 lines: refused, nothing pushed", async () => {
    const { refused, branch } = await publish(
      'require("fs").writeFileSync("settings.yml", Array.from({ length: 5000 }, (_, i) => "key" + i + ": " + i).join("\\u0085"))',
    );
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toMatch(/the branch's diff is 500\d lines, over the repository's max_diff_lines of 10/);
    expect(await remoteHas(branch)).toBe(false);
  });

  it("a Latin-1 byte 0x85 alone (not UTF-8 NEL) does not end a line: five lines pass", async () => {
    const { refused, branch } = await publish('require("fs").writeFileSync("src/latin1.txt", Buffer.from("a\\x85\\nb\\nc\\nd\\ne\\n", "latin1"))');
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });
});
