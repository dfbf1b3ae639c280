/**
 * Recycled checkouts: a sandboxed job's checkout is parked at dispose and reset for the next job of
 * the same repository. The first job here does everything it can to leave something behind; the
 * second must get exactly what a fresh clone would give it.
 */
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepoCache, detectSandbox, type PrepareOptions, type RepoCache, type Workspace } from "../../../src/workspace/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { git, isRoot, makeRemote, processesMatching, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
/** Processes whose command line is exactly `sleep <seconds>`. */
function sleeping(seconds: string): number {
  return processesMatching(`sleep ${seconds}`).filter((line) => line.endsWith(`: sleep ${seconds}`)).length;
}

const MARK = `left-behind-${Math.random().toString(36).slice(2, 10)}`;

describe("recycled checkouts", () => {
  let base: string;
  let home: string;
  let cache: RepoCache;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  const open: Workspace[] = [];

  const prepare = async (jobId: string, overrides: Partial<PrepareOptions> = {}): Promise<Workspace> => {
    const workspace = await cache.prepare({
      jobId,
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/recycle",
      branch: `tackle/issue-${open.length + 1}`,
      startFrom: "base",
      sandbox: "bwrap",
      ...overrides,
    });
    open.push(workspace);
    return workspace;
  };
  const hostGit = (workspace: Workspace, args: string[]) => git(workspace.root, ["-c", "safe.directory=*", ...args], base);
  const parked = (): string[] => {
    const dir = path.join(home, "recycled");
    return existsSync(dir) ? readdirSync(dir).flatMap((pool) => readdirSync(path.join(dir, pool)).map((entry) => `${pool}/${entry}`)) : [];
  };

  beforeAll(async () => {
    expect(support.available, support.detail).toBe(true);
    base = tempDir("recycle");
    home = path.join(base, "home");
    remote = await makeRemote(base);
    // A repository with attributes, an ignored directory, a submodule and files to tamper with.
    await remote.push(
      {
        ".gitattributes": "*.md text\n*.bat eol=crlf\n",
        "scripts/run.bat": "echo one\necho two\n",
        ".gitignore": "ignored/\n",
        "docs/guide.md": "line one\nline two\n",
        "docs/untouched.md": "nobody changes me\n",
        "lib/util.ts": "export const util = 1;\n",
        "src/app.ts": "export const x = 1;\nexport const y = 2;\n",
      },
      "more files",
    );
    await git(remote.work, ["update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},vendor/sub`]);
    await git(remote.work, ["commit", "--quiet", "-m", "submodule"]);
    await git(remote.work, ["push", "--quiet", "origin", "main"]);
    cache = createRepoCache({ home });
  });

  afterAll(async () => {
    for (const workspace of open) await workspace.dispose();
    removeDir(base);
  });

  it("gives the next job what a fresh clone would, with nothing of the earlier job left", async () => {
    const first = await prepare("job-1");
    const untouchedInode = statSync(path.join(first.root, "docs", "untouched.md")).ino;
    const freshConfig = readFileSync(path.join(first.root, ".git", "config"), "utf8");
    const freshRefs = await hostGit(first, ["for-each-ref", "--format=%(refname)"]);
    const originalMtime = Math.floor(statSync(path.join(first.root, "README.md")).mtimeMs / 1000);

    const attack = await first.exec.run(
      [
        "set -e",
        // History: a commit with a secret, a branch, a tag, a stash, notes, reflogs.
        `echo ${MARK}-secret > secret.txt && git add secret.txt && git commit -qm '${MARK} commit'`,
        `git branch ${MARK}-branch && git tag ${MARK}-tag`,
        `echo stash >> lib/util.ts && git stash -q && git notes add -m '${MARK} note' HEAD`,
        // .git leftovers (config and hooks are read-only in the sandbox).
        "mkdir -p .git/info .git/modules/x",
        `echo '${MARK}' > .git/info/exclude; echo '* ${MARK}' > .git/info/attributes; echo ${MARK} > .git/description`,
        `echo ${MARK} > .git/FETCH_HEAD; echo ${MARK} > .git/modules/x/config`,
        // Working tree: a same-size change with the old mtime, a CRLF file hidden by planted and
        // tracked attributes, a symlink in place of a file, odd modes, untracked, ignored, nested repo.
        `printf 'HELLO\\n' > README.md && touch -d @${originalMtime} README.md`,
        "printf 'export const x = 1;\\r\\nexport const y = 2;\\r\\n' > src/app.ts && printf 'app.ts text eol=crlf\\n' > src/.gitattributes",
        "printf '*.md text eol=crlf\\n' > .gitattributes && printf 'line one\\r\\nline two\\r\\n' > docs/guide.md",
        // A file the repository wants with CRLF, saved with the blob's own LF bytes.
        "printf 'echo one\\necho two\\n' > scripts/run.bat",
        "rm lib/util.ts && ln -s /etc/passwd lib/util.ts",
        "chmod 4755 src/app.ts; chmod 777 src docs",
        `echo ${MARK} > untracked.txt; mkdir -p ignored deep/er && echo ${MARK} > ignored/cache && echo ${MARK} > deep/er/file`,
        `git init -q nested && echo ${MARK} > nested/file`,
        `echo ${MARK} > vendor/sub/planted`,
        "echo done",
      ].join("\n"),
      { timeoutMs: 30_000 },
    );
    expect(attack.output).toContain("done");
    const agentCommit = await hostGit(first, ["rev-parse", "HEAD"]);
    const secretBlob = await hostGit(first, ["rev-parse", "HEAD:secret.txt"]);
    await first.fs.writeFile("from-write-tool.txt", `${MARK}\n`);
    await first.dispose();
    expect(existsSync(first.root)).toBe(false);
    expect(parked()).toHaveLength(1);

    const second = await prepare("job-2");
    expect(parked()).toHaveLength(0);
    // Recycled, not cloned afresh: an untouched file is the same inode.
    expect(statSync(path.join(second.root, "docs", "untouched.md")).ino).toBe(untouchedInode);

    // Tracked files: contents, types and modes of a fresh checkout.
    expect(readFileSync(path.join(second.root, "README.md"), "utf8")).toBe("hello\n");
    expect(readFileSync(path.join(second.root, "src", "app.ts"), "utf8")).toBe("export const x = 1;\nexport const y = 2;\n");
    expect(readFileSync(path.join(second.root, "docs", "guide.md"), "utf8")).toBe("line one\nline two\n");
    expect(readFileSync(path.join(second.root, ".gitattributes"), "utf8")).toBe("*.md text\n*.bat eol=crlf\n");
    expect(readFileSync(path.join(second.root, "scripts", "run.bat"), "utf8")).toBe("echo one\r\necho two\r\n");
    expect(lstatSync(path.join(second.root, "lib", "util.ts")).isFile()).toBe(true);
    expect(readFileSync(path.join(second.root, "lib", "util.ts"), "utf8")).toBe("export const util = 1;\n");
    expect(statSync(path.join(second.root, "src", "app.ts")).mode & 0o7777).toBe(0o644);
    expect(statSync(path.join(second.root, "src")).mode & 0o7777).toBe(0o755);
    expect(readdirSync(path.join(second.root, "vendor", "sub"))).toEqual([]);
    // Nothing untracked or ignored, and the index agrees with the tree by content.
    for (const gone of ["secret.txt", "untracked.txt", "ignored", "deep", "nested", "src/.gitattributes", "from-write-tool.txt"]) {
      expect(existsSync(path.join(second.root, gone)), gone).toBe(false);
    }
    expect(await hostGit(second, ["status", "--porcelain", "--ignored", "--untracked-files=all"])).toBe("");
    await hostGit(second, ["update-index", "--really-refresh"]);
    expect(await hostGit(second, ["diff", "--name-only", second.baseSha])).toBe("");

    // Git state: only a fresh clone's refs, config and hooks; no stash, notes, reflog or objects of job 1.
    const refs = (await hostGit(second, ["for-each-ref", "--format=%(refname)"])).split("\n").sort();
    expect(refs).toEqual(freshRefs.replace("refs/heads/tackle/issue-1", "refs/heads/tackle/issue-2").split("\n").sort());
    expect(readFileSync(path.join(second.root, ".git", "config"), "utf8")).toBe(freshConfig);
    expect(readdirSync(path.join(second.root, ".git", "hooks"))).toEqual([]);
    for (const object of [agentCommit, secretBlob]) {
      const found = await execa("git", ["-c", "safe.directory=*", "cat-file", "-e", object], { cwd: second.root, reject: false });
      expect(found.exitCode, `object ${object} of job 1`).not.toBe(0);
    }
    expect(await hostGit(second, ["reflog", "--all"])).not.toContain(MARK);
    const anywhere = await execa("grep", ["-rlF", MARK, second.root], { reject: false });
    expect(anywhere.stdout).toBe("");

    // And it works as a checkout: the agent can commit, the host can push.
    const work = await second.exec.run("echo more >> README.md && git commit -qam 'job 2' && git log --format=%s -2", { timeoutMs: 30_000 });
    expect(work.output).toBe("job 2\nsubmodule\n");
    expect((await second.push({ verify: () => ({ action: "publish" }), token: "t" })).pushed).toBe(true);
    if (isRoot) expect(statSync(path.join(second.root, "README.md")).uid).toBe(65534);
  });

  it("continues an existing branch from a recycled checkout", async () => {
    const before = await prepare("job-3", { branch: "tackle/issue-9" });
    await before.dispose();
    expect(parked().length).toBeGreaterThan(0);
    const continued = await prepare("job-4", { branch: "tackle/issue-1", startFrom: "existing" });
    expect(continued.startSha).toBe(await git(remote.remote, ["rev-parse", "tackle/issue-1"]));
    expect(readFileSync(path.join(continued.root, "stale.txt"), "utf8")).toBe("old attempt\n");
    expect(await hostGit(continued, ["status", "--porcelain", "--ignored"])).toBe("");
  });

  it("kills a command still running at dispose and parks the checkout only once nothing of the job is left; never an unsandboxed one", async () => {
    for (const workspace of open.splice(0)) await workspace.dispose();
    const pool = path.join(home, "recycled");
    for (const entry of readdirSync(pool)) removeDir(path.join(pool, entry));

    const busy = await prepare("job-busy");
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    const running = busy.exec.run(`sleep ${seconds} & setsid sleep ${seconds} & wait`, { timeoutMs: 120_000 }).catch((error: unknown) => error);
    while (sleeping(seconds) < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    await busy.dispose();
    // Ended by dispose, not by its own two-minute timeout: the command comes back cancelled.
    const ended = await running;
    expect(isTackleError(ended) ? ended.code : ended).toBe("aborted");
    expect(sleeping(seconds)).toBe(0);
    expect(existsSync(busy.root)).toBe(false);
    expect(parked()).toHaveLength(1);

    const before = parked();
    const unsandboxed = await prepare("job-off", { sandbox: "off" });
    await unsandboxed.dispose();
    expect(parked()).toEqual(before);
  });
});
