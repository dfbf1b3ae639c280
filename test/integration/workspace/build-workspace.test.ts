/**
 * The one Workspace builder behind server jobs and local runs: publishing through the host's own
 * repository beside the checkout, and what dispose keeps and removes. Each caller's destination
 * (a push, the hand-over) is a fake `deliver` here; repo-cache and local-workspace tests cover those.
 */
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildWorkspace, type PublishTarget } from "../../../src/workspace/build-workspace.js";
import { checkoutPaths, claimCheckout, type CheckoutPaths } from "../../../src/workspace/checkout-paths.js";
import { createHostGit } from "../../../src/workspace/git-host.js";
import { detectSandbox, DEFAULT_AUTHOR, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { sandboxOwner } from "../../../src/workspace/sandbox.js";
import { git, isRoot, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const accept = () => ({ action: "publish" }) as const;

interface Delivery {
  sha: string;
  previous: string | null;
  publishDir: string;
}

describe("buildWorkspace", () => {
  let base: string;
  let source: string;
  let templateDir: string;
  let baseSha: string;
  const host = () => createHostGit({ gitHome: path.join(base, "git-home") });

  beforeEach(async () => {
    base = tempDir("build-workspace");
    source = path.join(base, "source");
    templateDir = path.join(base, "git-home", "empty-template");
    mkdirSync(templateDir, { recursive: true });
    mkdirSync(source);
    await git(source, ["init", "--quiet", "-b", "main"], base);
    await execa("sh", ["-c", "echo hello > README.md"], { cwd: source });
    await git(source, ["add", "-A"], base);
    await git(source, ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "initial"], base);
    baseSha = await git(source, ["rev-parse", "HEAD"], base);
  });
  afterEach(() => removeDir(base));

  /** A claimed checkout of `source` on tackle/x, as repo-cache and local-workspace leave it before building. */
  async function checkout(name: string): Promise<CheckoutPaths> {
    const paths = checkoutPaths(path.join(base, "checkouts", name));
    mkdirSync(path.dirname(paths.root), { recursive: true });
    await claimCheckout(paths, {}, { staleAfterMs: 3600_000, inUse: () => new Error("in use") });
    await git(base, ["clone", "--shared", "--no-checkout", "--quiet", `--template=${templateDir}`, source, paths.root], base);
    await git(paths.root, ["checkout", "--quiet", "-B", "tackle/x", baseSha], base);
    return paths;
  }

  async function build(
    paths: CheckoutPaths,
    target: Partial<PublishTarget> & { deliveries?: Delivery[] } = {},
    recycle?: (root: string) => Promise<boolean>,
  ): Promise<Workspace> {
    const { deliveries = [], ...rest } = target;
    return buildWorkspace({
      git: host(),
      paths,
      branch: "tackle/x",
      baseBranch: "main",
      baseSha,
      startSha: baseSha,
      sandbox: mode,
      owner: sandboxOwner(mode),
      borrowed: [path.join(source, ".git", "objects")],
      templateDir,
      author: DEFAULT_AUTHOR,
      publish: {
        alternates: [path.join(source, ".git", "objects")],
        from: baseSha,
        current: null,
        async deliver({ publish, sha, previous }) {
          deliveries.push({ sha, previous, publishDir: publish.gitDir });
        },
        ...rest,
      },
      ...(recycle ? { recycle } : {}),
    });
  }

  const commit = (workspace: Workspace, file: string) =>
    workspace.exec.run(`echo ${file} > ${file} && git add ${file} && git commit -qm 'add ${file}' && git rev-parse HEAD`, { timeoutMs: 30_000 });

  it("publishes each new tip once, from the host's repository beside the checkout, telling the destination what it had", async () => {
    const deliveries: Delivery[] = [];
    const paths = await checkout("job-publish");
    const workspace = await build(paths, { deliveries });
    try {
      const first = (await commit(workspace, "a.txt")).output.trim().split("\n").at(-1)!;
      expect(await workspace.push({ verify: accept })).toEqual({ sha: first, pushed: true });
      expect(await workspace.push({ verify: accept })).toEqual({ sha: first, pushed: false });
      const second = (await commit(workspace, "b.txt")).output.trim().split("\n").at(-1)!;
      expect(await workspace.push({ verify: accept })).toEqual({ sha: second, pushed: true });

      expect(deliveries).toEqual([
        { sha: first, previous: null, publishDir: paths.publishDir },
        { sha: second, previous: first, publishDir: paths.publishDir },
      ]);
      expect(paths.publishDir).toBe(`${paths.root}.publish`);
      // The patch is of everything published since the base, read from the host's repository.
      const patch = await workspace.formatPatch();
      expect(patch).toContain("Subject: [PATCH 1/2] add a.txt");
      expect(patch).toContain("Subject: [PATCH 2/2] add b.txt");
    } finally {
      await workspace.dispose();
    }
  });

  it("sends nothing the destination has, and a precheck refuses before the publish repository exists", async () => {
    const deliveries: Delivery[] = [];
    const unchanged = await build(await checkout("job-current"), { deliveries, current: baseSha });
    try {
      expect(await unchanged.push({ verify: accept })).toEqual({ sha: baseSha, pushed: false });
      expect(deliveries).toEqual([]);
      expect(await unchanged.formatPatch()).toBe("");
    } finally {
      await unchanged.dispose();
    }

    const paths = await checkout("job-precheck");
    const refused = await build(paths, {
      deliveries,
      precheck: () => {
        throw new Error("branch not allowed");
      },
    });
    try {
      await commit(refused, "a.txt");
      await expect(refused.push({ verify: accept })).rejects.toThrow("branch not allowed");
      expect(existsSync(paths.publishDir)).toBe(false);
      expect(deliveries).toEqual([]);
    } finally {
      await refused.dispose();
    }
  });

  it("dispose keeps the checkout only when recycle took it, and removes everything beside it either way", async () => {
    const parked = path.join(base, "parked");
    const taken = await checkout("job-taken");
    const kept = await build(taken, {}, async (root) => {
      renameSync(root, parked);
      return true;
    });
    const failing = await checkout("job-failing");
    const notKept = await build(failing, {}, async () => {
      throw new Error("pool full");
    });
    const plain = await checkout("job-plain");
    const removed = await build(plain);

    for (const workspace of [kept, notKept, removed]) {
      await workspace.push({ verify: accept });
      await Promise.all([workspace.dispose(), workspace.dispose()]);
    }
    expect(existsSync(path.join(parked, "README.md"))).toBe(true);
    for (const paths of [taken, failing, plain]) {
      for (const p of [paths.root, paths.homeDir, paths.publishDir, paths.metaPath]) expect(existsSync(p), p).toBe(false);
    }
  });

  it.skipIf(!isRoot)("as root: the checkout and its home are the sandbox user's, git's own settings stay root's", async () => {
    const paths = await checkout("job-owner");
    const owner = sandboxOwner(mode)!;
    const workspace = await build(paths);
    try {
      const gitDir = path.join(paths.root, ".git");
      for (const p of [paths.root, path.join(paths.root, "README.md"), gitDir, path.join(gitDir, "HEAD"), paths.homeDir]) {
        expect(statSync(p).uid, p).toBe(owner.uid);
      }
      for (const p of [path.join(gitDir, "config"), path.join(gitDir, "hooks"), path.join(gitDir, "objects", "info", "alternates")]) {
        expect(statSync(p).uid, p).toBe(0);
      }
      const denied = await workspace.exec.run("echo x > .git/hooks/post-commit && echo WROTE-HOOK; echo y >> .git/config && echo WROTE-CONFIG", {
        timeoutMs: 30_000,
      });
      expect(denied.output).not.toContain("WROTE-HOOK");
      expect(denied.output).not.toContain("WROTE-CONFIG");
    } finally {
      await workspace.dispose();
    }
  });
});
