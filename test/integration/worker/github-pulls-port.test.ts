// githubPullsPort over real parts: a checkout prepared by the repo cache, pushed by the host to the
// fake GitHub, whose REST API answers 422 for a second open PR on the same head, as GitHub does.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenClient, type GitHubClient } from "../../../src/github/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { githubPullsPort } from "../../../src/worker/github-ports.js";
import { createRepoCache, detectSandbox, type RepoCache, type Workspace } from "../../../src/workspace/index.js";
import { startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { removeDir, tempDir } from "../workspace/helpers.js";

const OWNER = "acme";
const NAME = "widgets";
const repo = { owner: OWNER, name: NAME };

describe("githubPullsPort", () => {
  let fake: FakeGitHub;
  let github: GitHubClient;
  let cache: RepoCache;
  let base: string;
  let jobs = 0;
  const open: Workspace[] = [];

  beforeAll(async () => {
    base = tempDir("pulls-port", { sandboxWritable: true });
    fake = await startFakeGitHub();
    await fake.addRepo({ owner: OWNER, name: NAME, files: { "README.md": "# widgets\n" } });
    github = tokenClient({ token: fake.mintToken({ owner: OWNER }), apiUrl: fake.apiUrl, logger: silentLogger, throttle: false, retry: false });
    cache = createRepoCache({ home: path.join(base, "home"), recycledPerRepo: 0 });
  });
  afterAll(async () => {
    for (const workspace of open.splice(0)) await workspace.dispose();
    await fake.close();
    removeDir(base);
  });

  /** A checkout of `branch` with one new commit. */
  const workOn = async (branch: string): Promise<Workspace> => {
    const sandbox = (await detectSandbox()).available ? "bwrap" : "off";
    const workspace = await cache.prepare({
      jobId: `job-${++jobs}`,
      remoteUrl: fake.gitUrl(OWNER, NAME),
      repoKey: `fake/${OWNER}/${NAME}`,
      token: () => github.gitToken(),
      branch,
      startFrom: "existing",
      sandbox,
    });
    open.push(workspace);
    await workspace.fs.writeFile(`change-${jobs}.txt`, `change ${jobs}\n`);
    expect(await workspace.git.commit(`change ${jobs}`)).not.toBeNull();
    return workspace;
  };

  const portFor = (workspace: Workspace, client: GitHubClient = github) =>
    githubPullsPort({ github: client, redact: (text) => text, repo, workspace, policy: {}, issueNumber: 3, existingPull: null });

  it("pushes and opens a draft PR with the Fixes line; a second run updates that PR", async () => {
    const workspace = await workOn("tackle/issue-3");
    const first = await portFor(workspace).createOrUpdate({ title: "Fix it", body: "Changed the thing.", draft: true });
    expect(first).toMatchObject({ created: true, message: `opened pull request ${first.url}` });
    const pull = fake.pulls(OWNER, NAME).find((p) => p.number === first.number)!;
    expect(pull.body).toBe("Changed the thing.\n\nFixes #3");
    expect(await fake.branchSha(OWNER, NAME, "tackle/issue-3")).toBe((await workspace.git.log(1))[0]!.sha);

    const again = await workOn("tackle/issue-3");
    const second = await portFor(again).createOrUpdate({ title: "Fix it, take two", body: "Closes #3 properly.", draft: true });
    expect(second).toEqual({ number: first.number, url: first.url, created: false, message: `updated pull request ${first.url}` });
    expect(fake.pulls(OWNER, NAME).filter((p) => p.state === "open")).toHaveLength(1);
    expect(fake.pulls(OWNER, NAME).find((p) => p.number === first.number)).toMatchObject({ title: "Fix it, take two", body: "Closes #3 properly." });
  });

  it("PR already exists: another attempt opened it after the look-up, GitHub answers 422, and that PR is used", async () => {
    const workspace = await workOn("tackle/issue-4");
    let rivalNumber = 0;
    let createCalls = 0;
    // The other attempt of this job wins the race between our findOpenPull and our createPull.
    const racing: GitHubClient = {
      ...github,
      createPull: async (target, request) => {
        createCalls += 1;
        rivalNumber = (await github.createPull(target, { ...request, title: "The other attempt" })).number;
        return github.createPull(target, request);
      },
    };
    const result = await portFor(workspace, racing).createOrUpdate({ title: "Fix four", body: "Fixes #3", draft: true });
    expect(createCalls).toBe(1);
    expect(fake.requests({ method: "POST", path: `/api/v3/repos/${OWNER}/${NAME}/pulls` }).map((r) => r.status)).toEqual(expect.arrayContaining([201, 422]));
    expect(result).toMatchObject({ number: rivalNumber, created: false });
    expect(result.message).toBe(`updated pull request ${result.url}`);
    expect(fake.pulls(OWNER, NAME).filter((p) => p.state === "open" && p.pull?.head.ref === "tackle/issue-4")).toHaveLength(1);
  });

  it("a 422 with no open PR behind it is the error it was", async () => {
    const workspace = await workOn("tackle/issue-5");
    await expect(portFor(workspace).createOrUpdate({ title: "Fix five", body: "", draft: true, base: "no-such-branch" })).rejects.toMatchObject({
      code: "github_api",
      cause: { status: 422 },
    });
    expect(fake.pulls(OWNER, NAME).filter((p) => p.pull?.head.ref === "tackle/issue-5")).toHaveLength(0);
  });

  it("refuses a branch without commits before pushing anything", async () => {
    const sandbox = (await detectSandbox()).available ? "bwrap" : "off";
    const empty = await cache.prepare({
      jobId: `job-${++jobs}`,
      remoteUrl: fake.gitUrl(OWNER, NAME),
      repoKey: `fake/${OWNER}/${NAME}`,
      token: () => github.gitToken(),
      branch: "tackle/issue-6",
      startFrom: "base",
      sandbox,
    });
    open.push(empty);
    await expect(portFor(empty).createOrUpdate({ title: "Nothing", body: "", draft: true })).rejects.toMatchObject({ code: "push_refused" });
    expect(await fake.branchSha(OWNER, NAME, "tackle/issue-6")).toBeUndefined();
  });
});
