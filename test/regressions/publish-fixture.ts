import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { checkPublishedChange, type PolicyConfig } from "../../src/agent/policy/index.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

export interface PublishFixture {
  /**
   * A new job runs `command` in its sandbox (it must succeed; it commits what it writes), then the host
   * publishes under `policy`: the error a refusal threw (null when pushed), the branch, and the command's output.
   */
  publish(command: string, policy: PolicyConfig): Promise<{ refused: unknown; branch: string; output: string }>;
  /** Whether the remote has `branch`: a refusal pushes nothing. */
  remoteHas(branch: string): Promise<boolean>;
  /** A maintainer's commit of `content` at `file` on the base branch, pushed before the next job starts. */
  commitToBase(file: string, content: string): Promise<void>;
}

/** The publish checks' regression tests' world: a remote, a repo cache, one workspace per publish (call inside a `describe`). */
export function publishFixture(name: string): PublishFixture {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let jobs = 0;
  beforeAll(async () => {
    base = tempDir(name);
    remote = await makeRemote(base);
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });
  return {
    async publish(command, policy) {
      jobs += 1;
      // Past the branches the remote starts with (makeRemote).
      const branch = `tackle/issue-${1000 + jobs}`;
      const workspace = await cache.prepare({
        jobId: `${name}-${jobs}`,
        remoteUrl: remote.remote,
        repoKey: `github.com/acme/${name}`,
        branch,
        startFrom: "base",
        sandbox: mode,
      });
      open.push(workspace);
      const run = await workspace.exec.run(command, { timeoutMs: 120_000 });
      expect(run.exitCode, run.output).toBe(0);
      const refused = await workspace.push({ verify: (change) => checkPublishedChange(policy, change), token: "t" }).then(
        () => null,
        (error: unknown) => error,
      );
      return { refused, branch, output: run.output };
    },
    remoteHas: async (branch) => (await git(remote.remote, ["branch", "--list", branch])).trim() !== "",
    async commitToBase(file, content) {
      await git(remote.work, ["checkout", "--quiet", "main"]);
      writeFileSync(path.join(remote.work, file), content);
      await git(remote.work, ["add", file]);
      await git(remote.work, ["commit", "--quiet", "-m", `maintainer: ${file}`]);
      await git(remote.work, ["push", "--quiet", "origin", "main:main"]);
    },
  };
}

/** The publish thresholds a repository config sets, as the host reads them. */
export function policyOf(yaml: string): PolicyConfig {
  const parsed = parseRepoConfig(yaml);
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  return { maxDiffLines: parsed.config.max_diff_lines, maxDiffBytes: parsed.config.max_diff_bytes };
}
