import { Octokit } from "@octokit/rest";
import { throttling } from "@octokit/plugin-throttling";
import { createProbot, Probot } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fakes/index.js";

const PAT = "ghp_fakestatictoken000000000000000000000";
// Octokit logs every failed request; these tests provoke many on purpose.
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe("fake GitHub REST, driven by real Octokit and Probot", () => {
  let gh: FakeGitHub;
  let octokit: Octokit;
  let installationId: number;
  const client = (auth: string) => new Octokit({ baseUrl: gh.apiUrl, auth, log: quiet });

  beforeAll(async () => {
    gh = await startFakeGitHub({ staticTokens: { [PAT]: "octo-admin" } });
    const repo = await gh.addRepo({
      owner: "acme",
      name: "widgets",
      files: { "README.md": "# Widgets\n", "src/index.ts": "export const x = 1;\n", ".github/tackle.yml": "label: tackle\n" },
    });
    installationId = repo.installationId;
    gh.addIssue({ owner: "acme", repo: "widgets", title: "Fix the bug", body: "It breaks", user: "alice", labels: ["bug"] });
    gh.setPermission("acme", "widgets", "alice", "admin");
    gh.setPermission("acme", "widgets", "mia", "maintain");
    gh.setPermission("acme", "widgets", "tim", "triage");
    gh.addUser("stranger");
    octokit = client(gh.mintToken({ owner: "acme" }));
  });
  afterAll(async () => {
    await gh.close();
  });

  it("authenticates a Probot App with a JWT and mints an installation token", async () => {
    // Never pass REDIS_URL: Probot must use its in-memory token cache here.
    const probot = new Probot({ appId: gh.appId, privateKey: gh.privateKeyPem, baseUrl: gh.apiUrl, logLevel: "fatal" });
    const appOctokit = await probot.auth();
    const { data: app } = await appOctokit.request("GET /app");
    expect(app).toMatchObject({ id: gh.appId, slug: "tackle" });

    const { data: installation } = await appOctokit.request("GET /repos/{owner}/{repo}/installation", { owner: "acme", repo: "widgets" });
    expect(installation.id).toBe(installationId);

    const installationOctokit = await probot.auth(installationId);
    const { data: issue } = await installationOctokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 });
    expect(issue.title).toBe("Fix the bug");

    const mint = gh.requests({ route: "POST /app/installations/{installation_id}/access_tokens" });
    expect(mint).toHaveLength(1);
    expect(mint[0]?.status).toBe(201);
    const token = gh.requests({ route: "GET /repos/{owner}/{repo}/issues/{issue_number}" }).at(-1)?.token;
    expect(token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(gh.tokens().find((t) => t.token === token)?.login).toBe("tackle[bot]");
  });

  it("configures Probot from GHE_HOST/GHE_PROTOCOL environment variables", async () => {
    const probot = createProbot({ env: { ...gh.appEnv(), LOG_LEVEL: "fatal" } });
    const { data: app } = await (await probot.auth()).request("GET /app");
    expect(app?.slug).toBe("tackle");
  });

  it("rejects a JWT signed by another key and an unknown token", async () => {
    const bad = client("ghs_notarealtoken");
    await expect(bad.rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({
      status: 401,
      response: { data: { message: "Bad credentials" } },
    });
    const forged = await fetch(`${gh.apiUrl}/app`, { headers: { authorization: "Bearer a.b.c" } });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ message: "A JSON web token could not be decoded" });
  });

  it("expires and revokes installation tokens; static tokens keep working", async () => {
    const token = gh.mintToken({ owner: "acme" });
    const scoped = client(token);
    await scoped.rest.repos.get({ owner: "acme", repo: "widgets" });
    gh.expireTokens(token);
    await expect(scoped.rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({ status: 401 });
    const other = gh.mintToken({ owner: "acme" });
    gh.revokeToken(other);
    await expect(client(other).rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({ status: 401 });
    const pat = client(PAT);
    const { data: user } = await pat.rest.users.getAuthenticated();
    expect(user.login).toBe("octo-admin");
  });

  it("serves repository metadata with GitHub's fields", async () => {
    const { data: repo, headers } = await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });
    expect(repo).toMatchObject({ full_name: "acme/widgets", default_branch: "main", private: true, clone_url: gh.gitUrl("acme", "widgets") });
    expect(repo.owner.login).toBe("acme");
    expect(headers["x-ratelimit-remaining"]).toBeDefined();
    expect(headers["x-github-request-id"]).toBeDefined();
  });

  it("reports collaborator permissions like the REST permission endpoint", async () => {
    const level = async (username: string) => (await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "widgets", username })).data;
    expect(await level("alice")).toMatchObject({ permission: "admin", role_name: "admin" });
    expect(await level("mia")).toMatchObject({ permission: "write", role_name: "maintain" });
    expect(await level("tim")).toMatchObject({ permission: "read", role_name: "triage" });
    expect(await level("acme")).toMatchObject({ permission: "admin" });
    expect(await level("stranger")).toMatchObject({ permission: "none" });
    await expect(level("nobody-at-all")).rejects.toMatchObject({ status: 404 });
  });

  it("reads, updates and comments on issues, with pagination", async () => {
    const { data: issue } = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 });
    expect(issue).toMatchObject({ number: 1, state: "open", user: { login: "alice", type: "User" }, labels: [{ name: "bug" }] });
    expect(issue.pull_request).toBeUndefined();

    const { data: updated } = await octokit.rest.issues.update({ owner: "acme", repo: "widgets", issue_number: 1, labels: ["bug", "tackle"] });
    expect(updated.labels.map((l) => (typeof l === "string" ? l : l.name))).toEqual(["bug", "tackle"]);

    for (let i = 0; i < 5; i++) {
      const { status, data } = await octokit.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 1, body: `comment ${i}` });
      expect(status).toBe(201);
      expect(data.user?.login).toBe("tackle[bot]");
      expect(data.performed_via_github_app?.slug).toBe("tackle");
    }
    const page = await octokit.rest.issues.listComments({ owner: "acme", repo: "widgets", issue_number: 1, per_page: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.issues.listComments, { owner: "acme", repo: "widgets", issue_number: 1, per_page: 2 });
    expect(all.map((c) => c.body)).toEqual(["comment 0", "comment 1", "comment 2", "comment 3", "comment 4"]);

    const first = all[0];
    if (!first) throw new Error("no comment");
    await octokit.rest.issues.updateComment({ owner: "acme", repo: "widgets", comment_id: first.id, body: "edited" });
    expect(gh.comments("acme", "widgets", 1)[0]?.body).toBe("edited");
    await octokit.rest.issues.deleteComment({ owner: "acme", repo: "widgets", comment_id: first.id });
    expect(gh.comments("acme", "widgets", 1)).toHaveLength(4);

    await expect(octokit.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 99, body: "x" })).rejects.toMatchObject({ status: 404 });
  });

  it("creates reactions: 201 new, 200 repeat, 422 invalid content", async () => {
    const created = await octokit.rest.reactions.createForIssue({ owner: "acme", repo: "widgets", issue_number: 1, content: "eyes" });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ content: "eyes", user: { login: "tackle[bot]" } });
    const again = await octokit.rest.reactions.createForIssue({ owner: "acme", repo: "widgets", issue_number: 1, content: "eyes" });
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(created.data.id);

    const comment = gh.addComment({ owner: "acme", repo: "widgets", issueNumber: 1, body: "@tackle fix it", user: "alice" });
    const onComment = await octokit.rest.reactions.createForIssueComment({ owner: "acme", repo: "widgets", comment_id: comment.id, content: "eyes" });
    expect(onComment.status).toBe(201);
    expect(gh.reactions("acme", "widgets", { commentId: comment.id }).map((r) => r.content)).toEqual(["eyes"]);

    await expect(
      // Cast: Octokit's types reject the invalid content before it reaches the server.
      octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", {
        owner: "acme",
        repo: "widgets",
        issue_number: 1,
        content: "thumbsup" as "+1",
      }),
    ).rejects.toMatchObject({ status: 422 });
    const { data: issue } = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 });
    expect(issue.reactions?.eyes).toBe(1);
  });

  it("creates pull requests and answers a duplicate with GitHub's exact 422", async () => {
    await gh.commitFiles("acme", "widgets", "tackle/issue-1", { "src/index.ts": "export const x = 2;\n" }, { message: "Fix the bug" });
    const { data: pr, status } = await octokit.rest.pulls.create({
      owner: "acme",
      repo: "widgets",
      head: "tackle/issue-1",
      base: "main",
      title: "Fix the bug",
      body: "Fixes #1",
      draft: true,
    });
    expect(status).toBe(201);
    expect(pr).toMatchObject({
      number: 2,
      draft: true,
      state: "open",
      head: { ref: "tackle/issue-1", label: "acme:tackle/issue-1" },
      base: { ref: "main" },
      commits: 1,
      changed_files: 1,
    });
    expect(pr.head.sha).toBe(await gh.branchSha("acme", "widgets", "tackle/issue-1"));
    expect(gh.getIssue("acme", "widgets", 2)?.pull).toBeDefined();

    const { data: asIssue } = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 2 });
    expect(asIssue.pull_request?.url).toContain("/pulls/2");

    const duplicate = await octokit.rest.pulls
      .create({ owner: "acme", repo: "widgets", head: "acme:tackle/issue-1", base: "main", title: "Again" })
      .catch((error: { status: number; response: { data: unknown } }) => error);
    expect("status" in duplicate && duplicate.status).toBe(422);
    expect("response" in duplicate && duplicate.response.data).toEqual({
      message: "Validation Failed",
      errors: [{ resource: "PullRequest", code: "custom", message: "A pull request already exists for acme:tackle/issue-1." }],
      documentation_url: expect.any(String),
      status: "422",
    });
    await expect(octokit.rest.pulls.create({ owner: "acme", repo: "widgets", head: "no-such-branch", base: "main", title: "x" })).rejects.toMatchObject({
      status: 422,
    });
    await expect(octokit.rest.pulls.create({ owner: "acme", repo: "widgets", head: "main", base: "main", title: "x" })).rejects.toMatchObject({ status: 422 });

    const { data: listed } = await octokit.rest.pulls.list({ owner: "acme", repo: "widgets", head: "acme:tackle/issue-1", state: "open" });
    expect(listed.map((p) => p.number)).toEqual([2]);
    const { data: none } = await octokit.rest.pulls.list({ owner: "acme", repo: "widgets", head: "acme:other" });
    expect(none).toEqual([]);

    const { data: closed } = await octokit.rest.pulls.update({ owner: "acme", repo: "widgets", pull_number: 2, state: "closed", body: "Fixes #1\n\nDone." });
    expect(closed.state).toBe("closed");
    expect(gh.getIssue("acme", "widgets", 2)?.state).toBe("closed");
    const { data: reopened } = await octokit.rest.pulls.update({ owner: "acme", repo: "widgets", pull_number: 2, state: "open" });
    expect(reopened.state).toBe("open");
  });

  it("serves review comments and their reactions on a fork's pull request", async () => {
    await gh.addRepo({ owner: "forker", name: "widgets", forkOf: { owner: "acme", name: "widgets" } });
    const pr = await gh.addPullRequest({ owner: "acme", repo: "widgets", headOwner: "forker", head: "feature", files: { "docs.md": "hi\n" }, user: "forker" });
    const review = await gh.addReviewComment({
      owner: "acme",
      repo: "widgets",
      pullNumber: pr.number,
      body: "@tackle please rename",
      user: "alice",
      path: "docs.md",
    });
    const { data: pull } = await octokit.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: pr.number });
    expect(pull.head).toMatchObject({ ref: "feature", label: "forker:feature", repo: { full_name: "forker/widgets", fork: true } });
    const { data: comments } = await octokit.rest.pulls.listReviewComments({ owner: "acme", repo: "widgets", pull_number: pr.number });
    expect(comments[0]).toMatchObject({ id: review.id, body: "@tackle please rename", path: "docs.md", commit_id: pull.head.sha });
    const reaction = await octokit.rest.reactions.createForPullRequestReviewComment({ owner: "acme", repo: "widgets", comment_id: review.id, content: "eyes" });
    expect(reaction.status).toBe(201);
    expect(gh.reactions("acme", "widgets", { reviewCommentId: review.id })).toHaveLength(1);
  });

  it("reads contents, branches and refs from the bare repository", async () => {
    const { data } = await octokit.rest.repos.getContent({ owner: "acme", repo: "widgets", path: ".github/tackle.yml" });
    if (Array.isArray(data) || data.type !== "file") throw new Error("expected a file");
    expect(data.encoding).toBe("base64");
    expect(Buffer.from(data.content, "base64").toString()).toBe("label: tackle\n");

    const onBranch = await octokit.rest.repos.getContent({ owner: "acme", repo: "widgets", path: "src/index.ts", ref: "tackle/issue-1" });
    if (Array.isArray(onBranch.data) || onBranch.data.type !== "file") throw new Error("expected a file");
    expect(Buffer.from(onBranch.data.content, "base64").toString()).toBe("export const x = 2;\n");

    const raw = await octokit.rest.repos.getContent({ owner: "acme", repo: "widgets", path: ".github/tackle.yml", mediaType: { format: "raw" } });
    expect(raw.data).toBe("label: tackle\n");

    const { data: root } = await octokit.rest.repos.getContent({ owner: "acme", repo: "widgets", path: "" });
    expect(Array.isArray(root) && root.map((e) => `${e.type}:${e.name}`).sort()).toEqual(["dir:.github", "dir:src", "file:README.md"]);

    await expect(octokit.rest.repos.getContent({ owner: "acme", repo: "widgets", path: "AGENTS.md" })).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Not Found" } },
    });

    const { data: branch } = await octokit.rest.repos.getBranch({ owner: "acme", repo: "widgets", branch: "tackle/issue-1" });
    expect(branch.commit.sha).toBe(await gh.branchSha("acme", "widgets", "tackle/issue-1"));
    expect(branch.commit.commit.message).toBe("Fix the bug");
    const { data: ref } = await octokit.rest.git.getRef({ owner: "acme", repo: "widgets", ref: "heads/main" });
    expect(ref).toMatchObject({ ref: "refs/heads/main", object: { sha: await gh.branchSha("acme", "widgets", "main"), type: "commit" } });
    await expect(octokit.rest.repos.getBranch({ owner: "acme", repo: "widgets", branch: "nope" })).rejects.toMatchObject({ status: 404 });
  });

  it("hides repositories outside the installation and enforces token permissions", async () => {
    await gh.addRepo({ owner: "other-org", name: "secret", ownerType: "Organization" });
    await expect(octokit.rest.repos.get({ owner: "other-org", repo: "secret" })).rejects.toMatchObject({ status: 404 });
    const readOnly = client(gh.mintToken({ owner: "acme", permissions: { issues: "read", metadata: "read" } }));
    await expect(readOnly.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: 1, body: "x" })).rejects.toMatchObject({
      status: 403,
      response: { data: { message: "Resource not accessible by integration" } },
    });
  });

  it("answers unknown routes with 404 and bad JSON with 400", async () => {
    const token = gh.mintToken({ owner: "acme" });
    const unknown = await fetch(`${gh.apiUrl}/repos/acme/widgets/nonsense`, { headers: { authorization: `token ${token}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ message: "Not Found", documentation_url: expect.any(String) });
    const badJson = await fetch(`${gh.apiUrl}/repos/acme/widgets/issues/1/comments`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ message: "Problems parsing JSON" });
  });

  it("injects a secondary rate limit that Octokit recognises, and throttling recovers from it", async () => {
    gh.failNext({ secondaryRateLimit: true, retryAfter: 1, match: { method: "GET", pathRegex: /\/issues\/1$/ } });
    const error = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 403, response: { headers: { "retry-after": "1" } } });
    expect(String((error as Error).message)).toMatch(/secondary rate limit/i);

    const Throttled = Octokit.plugin(throttling);
    const retried: string[] = [];
    const throttled = new Throttled({
      baseUrl: gh.apiUrl,
      log: quiet,
      auth: gh.mintToken({ owner: "acme" }),
      throttle: {
        onRateLimit: () => true,
        onSecondaryRateLimit: (retryAfter: number, options: { url: string }) => {
          retried.push(`${options.url} after ${retryAfter}s`);
          return true;
        },
      },
    });
    gh.failNext({ secondaryRateLimit: true, retryAfter: 1, match: { pathRegex: /\/issues\/1$/ } });
    const { data } = await throttled.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 });
    expect(data.number).toBe(1);
    expect(retried).toHaveLength(1);
    expect(gh.requests({ path: /\/issues\/1$/ }).filter((r) => r.injected)).toHaveLength(2);
  });

  it("injects server errors for a number of matching requests", async () => {
    gh.failNext({ status: 502, count: 2, match: { method: "GET", pathRegex: /\/repos\/acme\/widgets$/ } });
    await expect(octokit.rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({ status: 502 });
    await expect(octokit.rest.repos.get({ owner: "acme", repo: "widgets" })).rejects.toMatchObject({ status: 502 });
    await expect(octokit.rest.repos.get({ owner: "acme", repo: "widgets" })).resolves.toMatchObject({ status: 200 });
  });

  it("records requests and lets tests await a condition", async () => {
    gh.clearLog();
    const waiting = gh.waitFor(() => gh.reactions("acme", "widgets", { issueNumber: 1 }).find((r) => r.content === "rocket"), 2000);
    await octokit.rest.reactions.createForIssue({ owner: "acme", repo: "widgets", issue_number: 1, content: "rocket" });
    await expect(waiting).resolves.toMatchObject({ content: "rocket", user: "tackle[bot]" });
    const [entry] = gh.requests({ method: "POST", route: "POST /repos/{owner}/{repo}/issues/{issue_number}/reactions" });
    expect(entry).toMatchObject({ kind: "rest", status: 201, body: { content: "rocket" }, login: "tackle[bot]" });
    expect(entry?.bytesSent).toBeGreaterThan(0);
    await expect(gh.waitFor(() => false, 50)).rejects.toThrow(/not met/);
  });
});
