import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanGitEnv, startFakeGitHub, type FakeGitHub } from "../fakes/index.js";

describe("fake GitHub git smart HTTP, driven by the real git client", () => {
  let gh: FakeGitHub;
  let work: string;
  const git = (args: string[], cwd = work) =>
    execa("git", args, {
      cwd,
      env: cleanGitEnv(join(work, "home"), {
        GIT_AUTHOR_NAME: "Test",
        GIT_AUTHOR_EMAIL: "test@example.com",
        GIT_COMMITTER_NAME: "Test",
        GIT_COMMITTER_EMAIL: "test@example.com",
      }),
      extendEnv: false,
      reject: false,
    });
  const authHeader = (token: string) => `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "fake-github-git-test-"));
    await mkdir(join(work, "home"));
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: "acme", name: "widgets", files: { "README.md": "# Widgets\n", "src/a.txt": "a\n" } });
    await gh.addRepo({ owner: "acme", name: "public-lib", private: false });
  });
  afterAll(async () => {
    await gh.close();
    await rm(work, { recursive: true, force: true });
  });

  it("clones with a minted token and pushes a new branch", async () => {
    const token = gh.mintToken({ owner: "acme" });
    const clone = await git(["-c", authHeader(token), "clone", "--quiet", gh.gitUrl("acme", "widgets"), "clone1"]);
    expect(clone.stderr).toBe("");
    expect(clone.exitCode).toBe(0);
    const dir = join(work, "clone1");
    expect(await readFile(join(dir, "src/a.txt"), "utf8")).toBe("a\n");
    const fetches = gh.requests({ kind: "git", method: "POST", path: "/acme/widgets.git/git-upload-pack" });
    expect(fetches.length).toBeGreaterThan(0);
    expect(fetches.reduce((sum, r) => sum + r.bytesSent, 0)).toBeGreaterThan(100);
    expect(fetches[0]).toMatchObject({ status: 200, token, login: "tackle[bot]" });

    await git(["checkout", "--quiet", "-b", "tackle/issue-1"], dir);
    await writeFile(join(dir, "src/a.txt"), "fixed\n");
    await git(["commit", "--quiet", "-am", "Fix a"], dir);
    const push = await git(["-c", authHeader(token), "push", "--quiet", "origin", "tackle/issue-1"], dir);
    expect(push.exitCode, push.stderr).toBe(0);
    expect(await gh.readFile("acme", "widgets", "tackle/issue-1", "src/a.txt")).toBe("fixed\n");
    expect(await gh.branchSha("acme", "widgets", "tackle/issue-1")).toBe((await git(["rev-parse", "HEAD"], dir)).stdout.trim());
  });

  it("accepts a push larger than http.postBuffer (chunked request body)", async () => {
    const dir = join(work, "clone1");
    await git(["checkout", "--quiet", "-b", "big"], dir);
    await writeFile(join(dir, "blob.bin"), randomBytes(3 * 1024 * 1024));
    await git(["add", "blob.bin"], dir);
    await git(["commit", "--quiet", "-m", "Big"], dir);
    const push = await git(["-c", authHeader(gh.mintToken({ owner: "acme" })), "push", "--quiet", "origin", "big"], dir);
    expect(push.exitCode, push.stderr).toBe(0);
    const received = gh.requests({ kind: "git", method: "POST", path: "/acme/widgets.git/git-receive-pack" }).at(-1);
    expect(received?.bytesReceived).toBeGreaterThan(3 * 1024 * 1024);
    expect(await gh.branchSha("acme", "widgets", "big")).toBe((await git(["rev-parse", "HEAD"], dir)).stdout.trim());
    await git(["checkout", "--quiet", "tackle/issue-1"], dir);
  });

  it("accepts the token as the password in the remote URL", async () => {
    const token = gh.mintToken({ owner: "acme" });
    const url = gh.gitUrl("acme", "widgets").replace("http://", `http://x-access-token:${token}@`);
    const clone = await git(["clone", "--quiet", "--depth", "1", url, "clone2"]);
    expect(clone.exitCode, clone.stderr).toBe(0);
  });

  it("refuses a push without a token, with an expired token, and with a read-only token", async () => {
    const dir = join(work, "clone1");
    await writeFile(join(dir, "src/a.txt"), "again\n");
    await git(["commit", "--quiet", "-am", "Again"], dir);

    const anonymous = await git(["push", "origin", "HEAD:refs/heads/anon"], dir);
    expect(anonymous.exitCode).not.toBe(0);
    const challenge = gh.requests({ kind: "git", status: 401 }).at(-1);
    expect(challenge?.path).toBe("/acme/widgets.git/info/refs");

    const expired = gh.mintToken({ owner: "acme" });
    gh.expireTokens(expired);
    const withExpired = await git(["-c", authHeader(expired), "push", "origin", "HEAD:refs/heads/expired"], dir);
    expect(withExpired.exitCode).not.toBe(0);

    const readOnly = gh.mintToken({ owner: "acme", permissions: { contents: "read", metadata: "read" } });
    const withReadOnly = await git(["-c", authHeader(readOnly), "push", "origin", "HEAD:refs/heads/ro"], dir);
    expect(withReadOnly.exitCode).not.toBe(0);
    expect(withReadOnly.stderr).toMatch(/403/);
    expect(await gh.branchSha("acme", "widgets", "anon")).toBeUndefined();
    expect(await gh.branchSha("acme", "widgets", "ro")).toBeUndefined();
  });

  it("refuses a clone of a private repo without a token, but serves a public one anonymously", async () => {
    const refused = await git(["clone", "--quiet", gh.gitUrl("acme", "widgets"), "anon-clone"]);
    expect(refused.exitCode).not.toBe(0);
    const open = await git(["clone", "--quiet", gh.gitUrl("acme", "public-lib"), "public-clone"]);
    expect(open.exitCode, open.stderr).toBe(0);
    const missing = await git(["-c", authHeader(gh.mintToken({ owner: "acme" })), "clone", "--quiet", gh.gitUrl("acme", "nope"), "missing"]);
    expect(missing.stderr).toMatch(/not found/i);
  });

  it("rejects a push touching workflows without the workflows permission", async () => {
    const dir = join(work, "clone1");
    await mkdir(join(dir, ".github/workflows"), { recursive: true });
    await writeFile(join(dir, ".github/workflows/ci.yml"), "on: push\n");
    await git(["add", "."], dir);
    await git(["commit", "--quiet", "-m", "Add CI"], dir);
    const push = await git(["-c", authHeader(gh.mintToken({ owner: "acme" })), "push", "origin", "HEAD:refs/heads/with-ci"], dir);
    expect(push.exitCode).not.toBe(0);
    expect(push.stderr).toContain("refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission");
    expect(await gh.branchSha("acme", "widgets", "with-ci")).toBeUndefined();
  });

  it("inflates gzip-encoded upload-pack requests", async () => {
    const sha = await gh.branchSha("acme", "widgets", "main");
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, "0")}${line}`;
    const body = gzipSync(Buffer.from(`${pkt(`want ${sha}\n`)}0000${pkt("done\n")}`));
    const token = gh.mintToken({ owner: "acme" });
    const response = await fetch(`${gh.gitUrl("acme", "widgets")}/git-upload-pack`, {
      method: "POST",
      body,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/x-git-upload-pack-request",
        "content-encoding": "gzip",
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-git-upload-pack-result");
    const pack = Buffer.from(await response.arrayBuffer());
    expect(pack.toString("latin1")).toContain("PACK");
    expect(gh.requests({ kind: "git", path: "/acme/widgets.git/git-upload-pack" }).at(-1)?.bytesSent).toBe(pack.length);
  });
});
