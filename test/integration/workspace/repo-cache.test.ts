import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { git, isRoot, makeRemote, removeDir, startGitHttpServer, tempDir } from "./helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

describe("repo cache", () => {
  let base: string;
  let home: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];

  const prepare = async (jobId: string, overrides: Partial<Parameters<RepoCache["prepare"]>[0]> = {}): Promise<Workspace> => {
    const workspace = await cache.prepare({
      jobId,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/widgets",
      branch: "tackle/issue-1",
      startFrom: "base",
      sandbox: mode,
      ...overrides,
    });
    open.push(workspace);
    return workspace;
  };

  beforeAll(async () => {
    base = tempDir("repo-cache");
    home = path.join(base, "home");
    remote = await makeRemote(base);
    cache = createRepoCache({ home });
  });

  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  it("prepares a checkout on the work branch from the base tip, then reuses the mirror (fetch only)", async () => {
    const coldStart = performance.now();
    const first = await prepare("job-cold");
    const coldMs = performance.now() - coldStart;
    const mirror = path.join(home, "mirrors", "github.com", "acme", "widgets.git");
    const mirrorInode = statSync(mirror).ino;

    expect(first.root).toBe(path.join(home, "checkouts", "job-cold"));
    expect(first.branch).toBe("tackle/issue-1");
    expect(first.baseBranch).toBe("main");
    expect(first.baseSha).toBe(await git(remote.remote, ["rev-parse", "main"]));
    expect(first.startSha).toBe(first.baseSha);
    expect(await first.git.currentBranch()).toBe("tackle/issue-1");
    expect(readFileSync(path.join(first.root, "README.md"), "utf8")).toBe("hello\n");
    // startFrom "base": the stale remote branch's work is not there.
    expect(existsSync(path.join(first.root, "stale.txt"))).toBe(false);
    // Objects are borrowed from the mirror; origin is the real remote, without credentials.
    expect(readFileSync(path.join(first.root, ".git", "objects", "info", "alternates"), "utf8").trim()).toBe(path.join(mirror, "objects"));
    expect(await git(first.root, ["-c", "safe.directory=*", "config", "remote.origin.url"], base)).toBe(remote.remote);

    const newSha = await remote.push({ "CHANGELOG.md": "v2\n" }, "second");
    const warmStart = performance.now();
    const second = await prepare("job-warm");
    const warmMs = performance.now() - warmStart;
    expect(statSync(mirror).ino).toBe(mirrorInode);
    expect(second.baseSha).toBe(newSha);
    expect(readFileSync(path.join(second.root, "CHANGELOG.md"), "utf8")).toBe("v2\n");
    console.log(`prepare timings: cold ${coldMs.toFixed(0)} ms, warm ${warmMs.toFixed(0)} ms (${mode})`);
  });

  it("continues an existing remote branch with startFrom existing", async () => {
    const workspace = await prepare("job-existing", { startFrom: "existing" });
    const remoteTip = await git(remote.remote, ["rev-parse", "tackle/issue-1"]);
    expect(workspace.startSha).toBe(remoteTip);
    expect(readFileSync(path.join(workspace.root, "stale.txt"), "utf8")).toBe("old attempt\n");
  });

  it("falls back to the base when startFrom existing names a branch the remote lacks", async () => {
    const workspace = await prepare("job-missing", { startFrom: "existing", branch: "tackle/issue-404" });
    expect(workspace.startSha).toBe(workspace.baseSha);
    expect(await workspace.git.currentBranch()).toBe("tackle/issue-404");
  });

  it("commits, counts, formats a patch and pushes (force-with-lease over a stale branch)", async () => {
    const workspace = await prepare("job-push", { branch: "tackle/issue-7" });
    await remote.push({ "stale7.txt": "x\n" }, "stale seven", "tackle/issue-7");
    await git(remote.work, ["checkout", "--quiet", "main"]);
    // The remote moved after prepare: the lease must refuse to clobber it.
    await workspace.fs.writeFile("src/feature.ts", "export const feature = true;\n");
    expect(await workspace.git.commit("Add feature")).toMatch(/^[0-9a-f]{40}$/);
    expect(await workspace.commitsAhead()).toBe(1);
    // The patch is of what was published, from the host's own objects: nothing yet.
    expect(await workspace.formatPatch()).toBe("");
    const refused = await workspace.push({ verify: () => ({ action: "publish" }), token: "t" }).catch((e: unknown) => e);
    expect(isTackleError(refused, "push_refused")).toBe(true);

    const fresh = await prepare("job-push-2", { branch: "tackle/issue-7" });
    await fresh.fs.writeFile("src/feature.ts", "export const feature = 2;\n");
    const sha = await fresh.git.commit("Add feature v2");
    expect(await fresh.push({ verify: () => ({ action: "publish" }), token: "t" })).toEqual({ sha, pushed: true });
    expect(await git(remote.remote, ["rev-parse", "tackle/issue-7"])).toBe(sha);
    expect(await fresh.formatPatch()).toContain("Subject: [PATCH] Add feature v2");
    expect(await fresh.push({ verify: () => ({ action: "publish" }), token: "t" })).toEqual({ sha, pushed: false });
  });

  it("a burst fetches once: a fetch that started after the trigger is fresh enough, an older one is not", async () => {
    const triggered = Date.now();
    const first = await prepare("job-burst-1", { branch: "tackle/issue-31", freshAfter: triggered });
    const upstream = await remote.push({ "later.txt": "after the burst's fetch\n" }, "later");
    // Enqueued before the first job's fetch started: no second fetch, so the newer commit is not seen.
    const second = await prepare("job-burst-2", { branch: "tackle/issue-32", freshAfter: triggered });
    expect(second.baseSha).toBe(first.baseSha);
    // A trigger after that fetch started fetches again and gets it.
    const third = await prepare("job-burst-3", { branch: "tackle/issue-33", freshAfter: Date.now() });
    expect(third.baseSha).toBe(upstream);
  });

  it("refuses branches outside tackle/ unless allowed, and invalid names", async () => {
    await expect(prepare("job-main", { branch: "main" })).rejects.toSatisfy((e: unknown) => isTackleError(e, "push_refused"));
    await expect(prepare("job-bad", { branch: "tackle/../x" })).rejects.toThrow(/invalid branch name/);
    await expect(prepare("job-bad2", { branch: "--upload-pack=evil" })).rejects.toThrow(/invalid branch name/);
    const pr = await prepare("job-pr", { branch: "feature/pr-head", startFrom: "existing", allowedPushBranches: ["feature/pr-head"] });
    expect(pr.branch).toBe("feature/pr-head");
    expect(existsSync(path.join(home, "checkouts", "job-main"))).toBe(false);
  });

  it("refuses credentials in the remote URL and odd repository keys", async () => {
    await expect(prepare("job-cred", { remoteUrl: "https://user:pw@example.com/a/b.git" })).rejects.toThrow(/credentials/);
    await expect(prepare("job-ssh", { remoteUrl: "ssh://git@example.com/a/b.git" })).rejects.toThrow(/not allowed/);
    await expect(prepare("job-key", { repoKey: "github.com/../etc" })).rejects.toThrow(/invalid repository key/);
  });

  it("serializes concurrent prepares of one repository", async () => {
    const [a, b, c] = await Promise.all([prepare("job-par-a"), prepare("job-par-b"), prepare("job-par-c")]);
    for (const workspace of [a, b, c]) expect(readFileSync(path.join(workspace!.root, "README.md"), "utf8")).toBe("hello\n");
  });

  it("disposes checkouts and prunes stale ones left by dead processes", async () => {
    const workspace = await prepare("job-dispose");
    await workspace.dispose();
    await workspace.dispose();
    expect(existsSync(workspace.root)).toBe(false);
    expect(existsSync(`${workspace.root}.json`)).toBe(false);

    const live = await prepare("job-live");
    const stale = path.join(home, "checkouts", "job-dead");
    mkdirSync(stale, { recursive: true });
    writeFileSync(
      `${stale}.json`,
      JSON.stringify({ pid: 2 ** 22 + 17, startTime: null, hostname: hostname(), createdAt: Date.now(), jobId: "job-dead", mirror: "" }),
    );
    const orphan = path.join(home, "checkouts", "job-no-meta");
    mkdirSync(orphan);
    await cache.pruneStale();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(live.root)).toBe(true);
    const stats = await cache.stats();
    expect(stats.checkouts.find((entry) => entry.jobId === "job-live")?.alive).toBe(true);
    expect(stats.mirrors.map((entry) => entry.repoKey)).toContain("github.com/acme/widgets");
  });
});

describe("repo cache: disk budget", () => {
  it("evicts the least recently used mirror that no live checkout borrows from", async () => {
    const base = tempDir("repo-budget");
    try {
      mkdirSync(path.join(base, "one"));
      mkdirSync(path.join(base, "two"));
      const one = await makeRemote(path.join(base, "one"));
      const two = await makeRemote(path.join(base, "two"));
      const home = path.join(base, "home");
      const cache = createRepoCache({ home, maxBytes: 1 });
      const common = { branch: "tackle/issue-1", startFrom: "base" as const, sandbox: mode };
      const a = await cache.prepare({ ...common, jobId: "a", remoteUrl: one.remote, repoKey: "github.com/acme/one" });
      await a.dispose();
      const b = await cache.prepare({ ...common, jobId: "b", remoteUrl: two.remote, repoKey: "github.com/acme/two" });
      await cache.pruneStale();
      const mirrors = path.join(home, "mirrors", "github.com", "acme");
      expect(existsSync(path.join(mirrors, "one.git"))).toBe(false);
      expect(existsSync(path.join(mirrors, "two.git"))).toBe(true);
      expect(await b.git.log(1)).toHaveLength(1);
      await b.dispose();
    } finally {
      removeDir(base);
    }
  });
});

describe("repo cache: private repository over smart HTTP", () => {
  it("fetches and pushes with a token given through the environment only, and stores it nowhere", async () => {
    const base = tempDir("repo-http");
    const token = `ghs_canary${Math.random().toString(36).slice(2)}`;
    const projects = path.join(base, "projects");
    mkdirSync(projects);
    const source = await makeRemote(base);
    await execa("git", ["clone", "--quiet", "--bare", source.remote, path.join(projects, "acme", "private.git")], {
      env: { PATH: process.env.PATH ?? "", HOME: base, GIT_CONFIG_NOSYSTEM: "1" },
      extendEnv: false,
    });
    const server = await startGitHttpServer(projects, token, base);
    try {
      const home = path.join(base, "home");
      const cache = createRepoCache({ home });
      const remoteUrl = `${server.url}/acme/private.git`;
      const common = { remoteUrl, repoKey: "127.0.0.1/acme/private", branch: "tackle/issue-9", startFrom: "base" as const, sandbox: mode };
      await expect(cache.prepare({ ...common, jobId: "anon" })).rejects.toSatisfy((e: unknown) => isTackleError(e, "git"));
      await expect(cache.prepare({ ...common, jobId: "wrong", token: "nope" })).rejects.toSatisfy((e: unknown) => isTackleError(e, "git"));

      const workspace = await cache.prepare({ ...common, jobId: "http", token: async () => token });
      await workspace.fs.writeFile("fix.txt", "fixed\n");
      const sha = await workspace.git.commit("Fix it");
      // The agent's own git, in the sandbox, has no credential to push with.
      const agentPush = await workspace.exec.run("git push origin HEAD 2>&1; echo exit=$?", { timeoutMs: 30_000 });
      expect(agentPush.output).not.toContain("exit=0");
      expect(await workspace.push({ verify: () => ({ action: "publish" }), token })).toEqual({ sha, pushed: true });
      expect(await git(path.join(projects, "acme", "private.git"), ["rev-parse", "tackle/issue-9"], base)).toBe(sha);

      const leaked = await execa("grep", ["-rl", "--", token, home], { reject: false });
      expect(leaked.stdout).toBe("");
      const encoded = Buffer.from(`x-access-token:${token}`).toString("base64");
      const leakedHeader = await execa("grep", ["-rl", "--", encoded, home], { reject: false });
      expect(leakedHeader.stdout).toBe("");
      expect(server.authorizations).toContain(`Basic ${encoded}`);
      await workspace.dispose();
    } finally {
      await server.close();
      removeDir(base);
    }
  });
});

describe.skipIf(!support.available)("workspace sandbox: attacks on git and the mirror", () => {
  let base: string;
  let home: string;
  let workspace: Workspace;
  let mirror: string;

  beforeAll(async () => {
    base = tempDir("repo-attacks");
    home = path.join(base, "home");
    const remote = await makeRemote(base);
    workspace = await createRepoCache({ home }).prepare({
      jobId: "attack",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/attack",
      branch: "tackle/issue-3",
      startFrom: "base",
      sandbox: "bwrap",
    });
    mirror = path.join(home, "mirrors", "github.com", "acme", "attack.git");
  });

  afterAll(async () => {
    await workspace.dispose();
    removeDir(base);
  });

  it("cannot write .git/config or .git/hooks, nor rename .git away", async () => {
    const configBefore = readFileSync(path.join(workspace.root, ".git", "config"), "utf8");
    const result = await workspace.exec.run(
      [
        "echo '#!/bin/sh' > .git/hooks/pre-commit && echo HOOK-WRITTEN",
        "git config core.fsmonitor 'touch /tmp/pwned' && echo CONFIG-WRITTEN",
        "echo '[core]' >> .git/config && echo CONFIG-APPENDED",
        "rm -f .git/config && echo CONFIG-REMOVED",
        "mv .git .git-moved && echo GIT-MOVED",
        "echo /tmp > .git/objects/info/alternates && echo ALTERNATES-WRITTEN",
        "echo end",
      ].join("; "),
      { timeoutMs: 20_000 },
    );
    expect(result.output).toContain("end");
    for (const marker of ["HOOK-WRITTEN", "CONFIG-WRITTEN", "CONFIG-APPENDED", "CONFIG-REMOVED", "GIT-MOVED", "ALTERNATES-WRITTEN"]) {
      expect(result.output).not.toContain(marker);
    }
    expect(readFileSync(path.join(workspace.root, ".git", "config"), "utf8")).toBe(configBefore);
    expect(existsSync(path.join(workspace.root, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("cannot write into the mirror, and its own commits stay out of it", async () => {
    const refsBefore = await git(mirror, ["for-each-ref"], base);
    const countBefore = await git(mirror, ["count-objects", "-v"], base);
    const result = await workspace.exec.run(
      [
        `touch ${mirror}/planted && echo MIRROR-WRITTEN`,
        `git --git-dir=${mirror} update-ref refs/heads/evil HEAD && echo REF-WRITTEN`,
        `git --git-dir=${mirror} config core.fsmonitor x && echo MIRROR-CONFIG`,
        "echo change >> README.md && git commit -qam 'agent commit' && echo COMMITTED",
        "echo end",
      ].join("; "),
      { timeoutMs: 20_000 },
    );
    expect(result.output).toContain("COMMITTED");
    for (const marker of ["MIRROR-WRITTEN", "REF-WRITTEN", "MIRROR-CONFIG"]) expect(result.output).not.toContain(marker);
    expect(existsSync(path.join(mirror, "planted"))).toBe(false);
    expect(await git(mirror, ["for-each-ref"], base)).toBe(refsBefore);
    expect(await git(mirror, ["count-objects", "-v"], base)).toBe(countBefore);
    expect(await workspace.commitsAhead()).toBe(1);
  });

  it("a planted commondir or hook cannot make the host's git run code", async () => {
    const pwned = path.join(workspace.root, "PWNED");
    const result = await workspace.exec.run(
      [
        "mkdir -p evil/hooks",
        `printf '[core]\\n\\tfsmonitor = touch ${pwned}\\n\\thooksPath = evil/hooks\\n' > evil/config`,
        `printf '#!/bin/sh\\ntouch ${pwned}\\n' > evil/hooks/pre-push && chmod +x evil/hooks/pre-push`,
        "echo ../evil > .git/commondir && echo COMMONDIR-PLANTED",
        "echo end",
      ].join("; "),
      { timeoutMs: 20_000 },
    );
    expect(result.output).toContain("end");
    expect(await workspace.commitsAhead()).toBe(1);
    await workspace.git.status();
    expect((await workspace.push({ verify: () => ({ action: "publish" }), token: "t" })).pushed).toBe(true);
    expect(await workspace.formatPatch()).toContain("agent commit");
    expect(existsSync(pwned)).toBe(false);
  });

  it("gives new files written by the host to the sandbox user", async () => {
    await workspace.fs.writeFile("deep/new/file.txt", "from the Write tool\n");
    const result = await workspace.exec.run("echo appended >> deep/new/file.txt && cat deep/new/file.txt && touch deep/new/other", { timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe("from the Write tool\nappended\n");
    if (isRoot) expect(statSync(path.join(workspace.root, "deep", "new")).uid).toBe(65534);
  });
});

describe("repo cache: unsandboxed checkout", () => {
  it("a .git/config changed without a sandbox does not steer the push (a pushInsteadOf would leak the token): it goes from the host's own repository", async () => {
    const base = tempDir("repo-off");
    // As root, unsandboxed commands run as uid 65534, which must reach TACKLE_HOME (mkdtemp makes 0700).
    chmodSync(base, 0o755);
    try {
      const remote = await makeRemote(base);
      const workspace = await createRepoCache({ home: path.join(base, "home") }).prepare({
        jobId: "off",
        remoteUrl: remote.remote,
        repoKey: "github.com/acme/off",
        branch: "tackle/issue-2",
        startFrom: "base",
        sandbox: "off",
      });
      expect(workspace.sandboxed).toBe(false);
      const result = await workspace.exec.run(
        "echo x >> README.md && git commit -qam change && git config url.http://127.0.0.1:9/.pushInsteadOf / && echo PLANTED",
        { timeoutMs: 20_000 },
      );
      expect(result.output).toContain("PLANTED");
      const { sha, pushed } = await workspace.push({ verify: () => ({ action: "publish" }), token: "t" });
      expect(pushed).toBe(true);
      expect(await git(remote.remote, ["rev-parse", "tackle/issue-2"])).toBe(sha);
      await workspace.dispose();
    } finally {
      removeDir(base);
    }
  });
});
