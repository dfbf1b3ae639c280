/**
 * The Worktree tool over a real local workspace (a private repository under a temp TACKLE_HOME, real
 * git, the sandbox this machine has): the tool through the registry and the real policy engine, with
 * the session's forwarding ports as the context's.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../../src/agent/tools/tool.js";
import { canonicalAction, coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler, worktreeTool } from "../../../src/agent/tools/index.js";
import { isReadOnly } from "../../../src/agent/tools/tool.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { MAX_WORKTREES } from "../../../src/workspace/local-worktrees.js";
import { detectSandbox, openLocalWorkspace, type SandboxMode, type Workspace } from "../../../src/workspace/index.js";
import { git, removeDir, tempDir } from "../../integration/workspace/helpers.js";
import { createFakeIssuePort, createFakePullsPort } from "./helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";
const BRANCH = "tackle/local-wt";

async function makeUserRepo(base: string): Promise<string> {
  const repo = path.join(base, "project");
  mkdirSync(repo);
  await git(repo, ["init", "--quiet", "-b", "main"], base);
  await execa("sh", ["-c", "echo hello > README.md"], { cwd: repo });
  await git(repo, ["add", "-A"], base);
  await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
  return repo;
}

describe("Worktree (local runs)", () => {
  let base: string;
  let repo: string;
  let home: string;
  let workspace: Workspace;
  let ctx: ToolContext;
  const registry = createToolRegistry([...coreTools(), worktreeTool], { policy: createPolicyEngine(), approval: denyingApprovalHandler });
  let calls = 0;

  const call = async (name: string, input: unknown) => {
    const [result] = await registry.runCalls([{ id: `call-${++calls}`, name, input }], ctx);
    if (result === undefined) throw new Error("no result");
    return { text: result.content, isError: result.is_error };
  };
  const worktree = (input: { action: string; name?: string }) => call("Worktree", input);

  beforeEach(async () => {
    base = tempDir("worktree-tool");
    // Without bubblewrap, commands run as uid 65534 (when the test is root), which must reach the checkouts.
    chmodSync(base, 0o755);
    repo = await makeUserRepo(base);
    home = path.join(base, "home");
    workspace = await openLocalWorkspace({ repoPath: repo, branch: BRANCH, home, sandbox: mode, worktrees: true });
    const worktrees = workspace.worktrees;
    if (worktrees === undefined) throw new Error("a local workspace opened with worktrees has them");
    ctx = {
      ...worktrees.ports,
      issue: createFakeIssuePort(),
      pulls: createFakePullsPort(),
      state: { todos: [], notes: [] },
      baseBranch: workspace.baseBranch,
      signal: new AbortController().signal,
      logger: silentLogger,
      worktrees: worktrees.port,
    };
  });
  afterEach(async () => {
    await workspace.dispose();
    removeDir(base);
  });

  it("creates a worktree beside the main checkout on its own branch, without entering it", async () => {
    const created = await worktree({ action: "create", name: "feat" });
    expect(created.isError, created.text).toBe(false);
    const root = path.join(`${workspace.root}.worktrees`, "feat");
    expect(created.text).toContain(`at ${root} on the new branch ${BRANCH}-feat`);
    expect(created.text).toContain("initial");
    // Beside the main checkout under TACKLE_HOME, never inside it nor the user's repository.
    expect(root.startsWith(`${home}${path.sep}`)).toBe(true);
    expect(existsSync(path.join(root, "README.md"))).toBe(true);
    expect(ctx.fs.root).toBe(workspace.root);

    const listed = await worktree({ action: "list" });
    const lines = listed.text.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^\\* main {2}${BRANCH} {2}[0-9a-f]{7} initial {2}${workspace.root}$`));
    expect(lines[1]).toMatch(new RegExp(`^ {2}feat {2}${BRANCH}-feat {2}[0-9a-f]{7} initial {2}${root}$`));
    expect(lines.at(-1)).toContain("Only main's branch is handed back");
  });

  it("enter moves every tool into the worktree, and leave brings them back", async () => {
    await worktree({ action: "create", name: "feat" });
    const root = path.join(`${workspace.root}.worktrees`, "feat");
    const entered = await worktree({ action: "enter", name: "feat" });
    expect(entered.isError, entered.text).toBe(false);
    expect(entered.text).toContain(`every tool works in ${root} (branch ${BRANCH}-feat)`);
    expect(ctx.fs.root).toBe(root);

    expect((await call("Bash", { command: "pwd; git rev-parse --abbrev-ref HEAD" })).text).toContain(`${root}\n${BRANCH}-feat`);
    expect((await call("Write", { file_path: "feature.txt", content: "aside\n" })).isError).toBe(false);
    expect(existsSync(path.join(root, "feature.txt"))).toBe(true);
    expect(existsSync(path.join(workspace.root, "feature.txt"))).toBe(false);
    expect((await call("Grep", { pattern: "aside", output_mode: "files_with_matches" })).text).toContain("feature.txt");
    // The worktree's .git file is the sandbox's to read, not to rewrite (nor the file tools' to touch).
    if (mode === "bwrap") expect((await call("Bash", { command: "echo 'gitdir: /tmp' > .git; echo $?" })).text).not.toMatch(/^0$/m);
    expect((await call("Read", { file_path: ".git" })).isError).toBe(true);
    const committed = await call("git_commit", { message: "Try it aside" });
    expect(committed.isError, committed.text).toBe(false);
    expect(committed.text).toContain(`${BRANCH}-feat`);

    const left = await worktree({ action: "leave" });
    expect(left.text).toContain(`Now in the main checkout ${workspace.root} (branch ${BRANCH})`);
    expect(ctx.fs.root).toBe(workspace.root);
    expect((await call("Bash", { command: "pwd" })).text).toContain(workspace.root);
    expect((await call("Read", { file_path: "feature.txt" })).isError).toBe(true);
    // The branches are shared: the main checkout sees the worktree's commit and can take it.
    expect((await call("Bash", { command: `git log --format=%s -1 ${BRANCH}-feat` })).text).toContain("Try it aside");
    expect(await workspace.git.log(1)).toMatchObject([{ subject: "initial" }]);
    const list = (await worktree({ action: "list" })).text;
    expect(list).toMatch(/^\* main /m);
    expect(list).toMatch(/^ {2}feat .* Try it aside /m);
  });

  it("the worktrees share the run's loopback: a server started in the main checkout answers a command in a worktree", async () => {
    let output = "";
    await ctx.exec.start?.(["node", "-e", "require('http').createServer((q, s) => s.end('pong')).listen(8733, '127.0.0.1', () => console.log('up'))"], {
      onStdout: (chunk) => (output += chunk.toString("utf8")),
    });
    for (let i = 0; i < 400 && !output.includes("up"); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(output).toContain("up");
    await worktree({ action: "create", name: "feat" });
    await worktree({ action: "enter", name: "feat" });
    const fetched = await call("Bash", { command: "node -e \"fetch('http://127.0.0.1:8733').then((r) => r.text()).then(console.log)\"" });
    expect(fetched.text).toBe("pong\n[exit code 0]");
  });

  it("answers a bad, unknown, taken or missing name, and a removal of the main or current worktree, with a specific error", async () => {
    await worktree({ action: "create", name: "feat" });
    const cases: Array<[{ action: string; name?: string }, RegExp]> = [
      [{ action: "create", name: "Feat" }, /"Feat" is not a valid worktree name: use 1 to 40 characters, each a-z, 0-9 or "-"/],
      [{ action: "create", name: "a".repeat(41) }, /is not a valid worktree name/],
      [{ action: "create", name: "../x" }, /is not a valid worktree name/],
      [{ action: "create", name: "feat" }, /a worktree named "feat" already exists/],
      [{ action: "create", name: "main" }, /a worktree named "main" already exists/],
      [{ action: "enter", name: "nope" }, /there is no worktree named "nope"; the worktrees are: main, feat/],
      [{ action: "remove", name: "nope" }, /there is no worktree named "nope"/],
      [{ action: "remove", name: "main" }, /the main checkout cannot be removed/],
      [{ action: "enter" }, /name is required for action "enter"/],
      [{ action: "create", name: "  " }, /name is required for action "create"/],
    ];
    for (const [input, expected] of cases) {
      const result = await worktree(input);
      expect(result.isError, JSON.stringify(input)).toBe(true);
      expect(result.text).toMatch(expected);
    }
    await worktree({ action: "enter", name: "feat" });
    const current = await worktree({ action: "remove", name: "feat" });
    expect(current.isError).toBe(true);
    expect(current.text).toMatch(/"feat" is the current worktree; leave it/);
    expect(existsSync(path.join(`${workspace.root}.worktrees`, "feat"))).toBe(true);
  });

  it("refuses a name whose branch the agent already made, and more than the limit of worktrees", async () => {
    expect((await call("git_branch", { action: "create", name: `${BRANCH}-dup` })).isError).toBe(false);
    await call("git_branch", { action: "switch", name: BRANCH });
    const dup = await worktree({ action: "create", name: "dup" });
    expect(dup.isError).toBe(true);
    expect(dup.text).toContain(`the branch ${BRANCH}-dup already exists`);
    expect(existsSync(path.join(`${workspace.root}.worktrees`, "dup"))).toBe(false);

    for (let i = 0; i < MAX_WORKTREES; i += 1) expect((await worktree({ action: "create", name: `w${i}` })).isError).toBe(false);
    const over = await worktree({ action: "create", name: "one-more" });
    expect(over.isError).toBe(true);
    expect(over.text).toContain(`there are already ${MAX_WORKTREES} worktrees`);
  }, 120_000);

  it("remove deletes the worktree, its entry in the repository and its branch; the others keep working", async () => {
    await worktree({ action: "create", name: "gone" });
    await worktree({ action: "create", name: "kept" });
    const gone = path.join(`${workspace.root}.worktrees`, "gone");
    const removed = await worktree({ action: "remove", name: "gone" });
    expect(removed.isError, removed.text).toBe(false);
    expect(removed.text).toBe(`Removed worktree "gone" and its branch ${BRANCH}-gone.`);
    expect(existsSync(gone)).toBe(false);
    expect((await call("git_branch", { action: "list" })).text).not.toContain(`${BRANCH}-gone`);
    expect((await call("Bash", { command: "ls .git/worktrees" })).text).toMatch(/^kept$/m);
    expect((await call("Bash", { command: "ls .git/worktrees" })).text).not.toContain("gone");
    expect((await worktree({ action: "enter", name: "gone" })).isError).toBe(true);
    expect(workspace.worktrees?.branches()).toEqual([`${BRANCH}-kept`]);

    // The same name can be made again, on a fresh branch.
    expect((await worktree({ action: "create", name: "gone" })).isError).toBe(false);
    await worktree({ action: "enter", name: "kept" });
    expect((await call("Bash", { command: "git status --short && echo OK" })).text).toContain("OK");
  });

  it("remove ends the worktree's commands before its files go", async () => {
    const port = workspace.worktrees!.port;
    await port.create("busy");
    await port.enter("busy");
    const running = ctx.exec.run("touch started && sleep 300", { timeoutMs: 600_000 }).then(
      () => "finished",
      (error: unknown) => String(error),
    );
    const started = path.join(`${workspace.root}.worktrees`, "busy", "started");
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
    await port.leave();
    await expect(port.remove("busy")).resolves.toEqual({ name: "busy", branch: `${BRANCH}-busy` });
    // Only a command that was killed settles: sleep would outlast the test.
    expect(await running).toMatch(/command cancelled/);
    expect(existsSync(path.join(`${workspace.root}.worktrees`, "busy"))).toBe(false);
  });

  it("dispose removes every extra worktree; only the main branch ever reaches the user's repository", async () => {
    await worktree({ action: "create", name: "feat" });
    await worktree({ action: "enter", name: "feat" });
    await call("Write", { file_path: "feature.txt", content: "aside\n" });
    await call("git_commit", { message: "aside" });
    const running = ctx.exec.run("touch started && sleep 300", { timeoutMs: 600_000 }).then(
      () => "finished",
      (error: unknown) => String(error),
    );
    while (!existsSync(path.join(`${workspace.root}.worktrees`, "feat", "started"))) await new Promise((resolve) => setTimeout(resolve, 20));
    await worktree({ action: "leave" });
    await call("Write", { file_path: "main.txt", content: "kept\n" });
    await call("git_commit", { message: "main work" });
    const handed = await workspace.push({ verify: () => ({ action: "publish" }) });
    expect(handed.pushed).toBe(true);
    await workspace.dispose();
    expect(await running).toMatch(/command cancelled/);
    expect(existsSync(`${workspace.root}.worktrees`)).toBe(false);
    expect(readdirSync(path.join(home, "local"))).toEqual([]);
    const branches = (await git(repo, ["for-each-ref", "--format=%(refname:short)", "refs/heads"], base)).split("\n");
    expect(branches.sort()).toEqual(["main", BRANCH]);
    expect(await git(repo, ["log", "--format=%s", BRANCH], base)).toBe("main work\ninitial");
    // Disposed: the tool says so instead of making anything.
    expect((await worktree({ action: "create", name: "late" })).text).toContain("disposed");
  });

  it("is not offered outside local runs, changes the tree the tools see, and says so without its port", async () => {
    expect(isReadOnly(worktreeTool.effects)).toBe(false);
    expect(await createPolicyEngine().check(canonicalAction(worktreeTool, { action: "create", name: "x" }), ctx)).toEqual({ action: "allow" });
    const { worktrees: _, ...withoutPort } = ctx;
    const [result] = await registry.runCalls([{ id: "x", name: "Worktree", input: { action: "list" } }], withoutPort);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("only available in local runs");
  });
});
