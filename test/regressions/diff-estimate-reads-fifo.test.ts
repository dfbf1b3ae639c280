// The policy's diff estimate (max_diff_lines) re-read every file it remembered with a plain
// `readFile`, on the host, outside the job's pause, with no type or size check. A background command
// that replaced a remembered file after the write could make the host (root) read anything:
// - a FIFO: the read blocked a libuv thread until a writer came, forever (the job ignored its
//   deadline; four such jobs starved the process's fs and dns work);
// - a symlink to /dev/zero: the read buffered up to 2 GiB;
// - a symlink to a root-only file: its content was read by the root host, and its size reached the
//   model in the refusal's line count.
// Now every host read of a worktree file goes through the workspace's one guarded reader
// (src/workspace/read-worktree-file.ts): regular files only, O_NOFOLLOW|O_NONBLOCK, a size cap, in
// the pause. A remembered file the reader does not take is measured again by git in the sandbox.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyEngine, createToolRegistry, denyingApprovalHandler, type ToolContext } from "../../src/agent/tools/index.js";
import { editTool } from "../../src/agent/tools/edit.js";
import { writeTool } from "../../src/agent/tools/write.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createRepoCache, detectSandbox, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { makeRemote, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode: SandboxMode = support.available ? "bwrap" : "off";

/** Bytes this process has read through read(2) and the like, /dev/zero included. */
function bytesReadByThisProcess(): number {
  const line = readFileSync("/proc/self/io", "utf8")
    .split("\n")
    .find((row) => row.startsWith("rchar:"));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

describe(`the policy's diff estimate against a remembered file swapped by a background command (${mode})`, () => {
  let base: string;
  let workspace: Workspace;
  const stop: Array<() => void> = [];

  beforeEach(async () => {
    base = tempDir("diff-estimate-fifo", { sandboxWritable: true });
    const remote = await makeRemote(base);
    workspace = await createRepoCache({ home: path.join(base, "home") }).prepare({
      jobId: "diff-estimate-fifo",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/fifo",
      branch: "tackle/issue-9",
      startFrom: "base",
      sandbox: mode,
    });
  });
  afterEach(async () => {
    for (const end of stop.splice(0)) end();
    await workspace.dispose();
    removeDir(base);
  });

  const registry = () => createToolRegistry([writeTool, editTool], { policy: createPolicyEngine({ maxDiffLines: 1000 }), approval: denyingApprovalHandler });
  const contextOf = (): ToolContext =>
    ({
      fs: workspace.fs,
      exec: workspace.exec,
      search: workspace.search,
      git: workspace.git,
      state: { todos: [], notes: [] },
      baseBranch: "main",
      signal: new AbortController().signal,
      logger: silentLogger,
    }) as unknown as ToolContext;

  /** The policy remembers README.md (a write it counted), then a background command of the job replaces it. */
  async function rememberThenSwap(tools: ReturnType<typeof registry>, ctx: ToolContext, swap: string): Promise<void> {
    const [first] = await tools.runCalls([{ id: "w1", name: "Write", input: { file_path: "README.md", content: "# demo\nmore\n" } }], ctx);
    expect(first?.is_error).toBe(false);
    const started = await workspace.exec.start!(["bash", "-c", swap], { onStdout: () => undefined });
    expect((await started.exited).exitCode).toBe(0);
  }

  /** Writes a second file with the same engine: its estimate refreshes README.md. */
  async function writeAnother(tools: ReturnType<typeof registry>, ctx: ToolContext) {
    const [result] = await tools.runCalls([{ id: "w2", name: "Write", input: { file_path: "notes.txt", content: "a note\n" } }], ctx);
    return result;
  }

  it("a FIFO: the call completes without the host opening it (a writer waiting on it is never let in)", async () => {
    const ctx = contextOf();
    const tools = registry();
    await rememberThenSwap(tools, ctx, "rm README.md && mkfifo README.md");
    // A host process waits to write into the FIFO: its open returns only when someone opens it for reading.
    const fifo = path.join(workspace.root, "README.md");
    let writerOpened = false;
    const writer = spawn("sh", ["-c", 'exec 3>"$1"; echo opened', "sh", fifo], { stdio: ["ignore", "pipe", "ignore"] });
    writer.stdout.on("data", () => (writerOpened = true));
    stop.push(() => writer.kill("SIGKILL"));

    const result = await writeAnother(tools, ctx);
    expect(writerOpened).toBe(false);
    expect(result?.is_error).toBe(false);
    expect(readFileSync(path.join(workspace.root, "notes.txt"), "utf8")).toBe("a note\n");

    // The FIFO itself as the target: refused by type, never opened.
    const [edit] = await tools.runCalls([{ id: "e1", name: "Edit", input: { file_path: "README.md", old_string: "more", new_string: "less" } }], ctx);
    expect(writerOpened).toBe(false);
    expect(edit?.is_error).toBe(true);
    expect(edit?.content).toMatch(/FIFO|not a regular file/);
  });

  it("a symlink to /dev/zero: nothing is read from it", async () => {
    const ctx = contextOf();
    const tools = registry();
    await rememberThenSwap(tools, ctx, "rm README.md && ln -s /dev/zero README.md");
    const before = bytesReadByThisProcess();
    const result = await writeAnother(tools, ctx);
    const read = bytesReadByThisProcess() - before;
    expect(result?.is_error).toBe(false);
    // Git's output and the files of the checkout are a few kilobytes; /dev/zero would be gigabytes.
    expect(read).toBeLessThan(64 * 1024 * 1024);
  });

  it("a symlink to a root-only file: the host does not read it, and nothing of it reaches the model", async () => {
    const secretDir = tempDir("diff-estimate-root-only");
    stop.push(() => removeDir(secretDir));
    chmodSync(secretDir, 0o700);
    mkdirSync(path.join(secretDir, "inner"));
    const secret = path.join(secretDir, "inner", "root-only.txt");
    // 16 MiB, so that reading it shows in what this process read.
    const line = "ROOT-ONLY ".padEnd(63, "x");
    writeFileSync(secret, `${line}\n`.repeat(256 * 1024), { mode: 0o600 });
    const ctx = contextOf();
    const tools = registry();
    await rememberThenSwap(tools, ctx, `rm README.md && ln -s ${secret} README.md`);
    const before = bytesReadByThisProcess();
    const result = await writeAnother(tools, ctx);
    const read = bytesReadByThisProcess() - before;
    expect(result?.content).not.toMatch(/ROOT-ONLY|262\d\d\d lines/);
    expect(result?.is_error).toBe(false);
    expect(read).toBeLessThan(8 * 1024 * 1024);
  });
});
