/**
 * The host's publish check on a pull request's own head: what this job added is measured from the
 * head as it was when the job started, so a maintainer's own protected change already in the PR does
 * not block the job, while a rewrite of the PR's history is refused.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../../src/agent/policy/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const verify = (change: Parameters<typeof checkPublishedChange>[1]) => checkPublishedChange({}, change);

describe("publish check on a pull request's head", () => {
  let base: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  const prepare = async (jobId: string): Promise<Workspace> => {
    const workspace = await cache.prepare({
      jobId,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/widgets",
      branch: "feature/wf",
      allowedPushBranches: ["feature/wf"],
      startFrom: "existing",
      sandbox: mode,
    });
    open.push(workspace);
    return workspace;
  };

  beforeAll(async () => {
    base = tempDir("publish-check");
    remote = await makeRemote(base);
    // The maintainer's PR already changes a workflow.
    await remote.push({ ".github/workflows/ci.yml": "on: push\n" }, "maintainer: CI", "feature/wf");
    cache = createRepoCache({ home: path.join(base, "home") });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  it("a new commit on top is measured from the head at job start, so the maintainer's workflow does not block it", async () => {
    const workspace = await prepare("pr-add");
    const run = await workspace.exec.run("echo 'export const y = 2;' >> src/app.ts && git commit -qam 'job: y'", { timeoutMs: 30_000 });
    expect(run.exitCode).toBe(0);
    const { sha, pushed } = await workspace.push({ verify, token: "t" });
    expect(pushed).toBe(true);
    expect(await git(remote.remote, ["rev-parse", "feature/wf"])).toBe(sha);
  });

  it("a workflow change of the job's own is refused there too", async () => {
    const workspace = await prepare("pr-wf");
    await workspace.exec.run("echo '# job' >> .github/workflows/ci.yml && git commit -qam 'job: ci'", { timeoutMs: 30_000 });
    const before = await git(remote.remote, ["rev-parse", "feature/wf"]);
    const refused = await workspace.push({ verify, token: "t" }).catch((e: unknown) => e);
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toContain("protected path .github/workflows/ci.yml");
    expect(await git(remote.remote, ["rev-parse", "feature/wf"])).toBe(before);
  });

  it("a rewrite of the pull request's history is refused, even when its content is harmless", async () => {
    const workspace = await prepare("pr-rewrite");
    await workspace.exec.run("git reset -q --hard HEAD~1 && echo rewritten > notes.txt && git add notes.txt && git commit -qm rewrite", { timeoutMs: 30_000 });
    const before = await git(remote.remote, ["rev-parse", "feature/wf"]);
    const refused = await workspace.push({ verify: () => ({ action: "publish" }), token: "t" }).catch((e: unknown) => e);
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toMatch(/does not build on the pull request's head/);
    expect(await git(remote.remote, ["rev-parse", "feature/wf"])).toBe(before);
  });
});
