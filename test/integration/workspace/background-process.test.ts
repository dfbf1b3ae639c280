/**
 * Sandbox.start: long-running processes of the job (background jobs, Monitors, stdio MCP servers),
 * and Sandbox.pausing, which stops every process of the job while a host file tool checks a path
 * and opens it. Under bubblewrap with the job's namespace, and with the sandbox off.
 */
import { readFileSync } from "node:fs";
import { lstat, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxExec, detectSandbox, type Sandbox, type SandboxMode } from "../../../src/workspace/index.js";
import { removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];

/** Output of a started process, as it arrives. */
function collector() {
  let text = "";
  const waiters: Array<() => void> = [];
  return {
    push: (chunk: Buffer) => {
      text += chunk.toString("utf8");
      for (const wake of waiters.splice(0)) wake();
    },
    get text() {
      return text;
    },
    async until(pattern: RegExp, ms = 20_000): Promise<string> {
      const deadline = Date.now() + ms;
      while (!pattern.test(text)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in output: ${JSON.stringify(text)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return text;
    },
  };
}

function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
}

describe.each(modes)("long-running processes of a job (%s)", (mode) => {
  let root: string;
  let sandbox: Sandbox;

  beforeEach(() => {
    root = tempDir(`bg-${mode}`, { sandboxWritable: true });
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tempDir(`bg-tmp-${mode}`, { sandboxWritable: true }) });
  });
  afterEach(async () => {
    await sandbox.dispose();
    removeDir(root);
  });

  it("a started process runs beside later commands, which reach it on the job's loopback and /tmp", async () => {
    const out = collector();
    const server = await sandbox.start!(["bash", "-c", "echo $$ > /tmp/server.pid; echo listening; exec sleep 600"], { onStdout: out.push });
    await out.until(/listening/);
    expect(sandbox.running).toBe(1);
    const seen = await sandbox.run("cat /tmp/server.pid", { timeoutMs: 30_000 });
    expect(seen.output.trim()).toMatch(/^\d+$/);
    await server.stop();
    expect(await server.exited).toEqual({ exitCode: null, killed: true });
    expect(sandbox.running).toBe(0);
  });

  it("reports the exit code of a process that ends by itself, and its stdin is the caller's", async () => {
    const out = collector();
    const started = await sandbox.start!(["bash", "-c", "read line; echo got:$line; exit 3"], { onStdout: out.push, stdin: true });
    started.stdin?.write("hello\n");
    expect(await started.exited).toEqual({ exitCode: 3, killed: false });
    expect(out.text).toBe("got:hello\n");
  });

  it("dispose kills what is still running and says nothing is left", async () => {
    const out = collector();
    const started = await sandbox.start!(["bash", "-c", "sleep 600 & sleep 600 & echo up; wait"], { onStdout: out.push });
    await out.until(/up/);
    expect(await sandbox.dispose()).toBe(true);
    expect((await started.exited).killed).toBe(true);
    expect(sandbox.running).toBe(0);
  });

  it("pausing stops every process of the job, children included, and continues them after", async () => {
    const out = collector();
    await sandbox.start!(["bash", "-c", "(while :; do echo tick >> ticks; sleep 0.01; done) & echo $! > child.pid; echo $$ > parent.pid; wait"], {
      onStdout: out.push,
    });
    const childPid = async (): Promise<number> => {
      for (;;) {
        const text = await readFile(path.join(root, "child.pid"), "utf8").catch(() => "");
        if (text.trim() !== "") return Number(text.trim());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const inSandbox = await childPid();
    const ticks = () => readFileSync(path.join(root, "ticks"), "utf8").length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await sandbox.pausing!(async () => {
      const before = ticks();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { before, after: ticks() };
    });
    expect(during.after).toBe(during.before);
    const resumed = ticks();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ticks()).toBeGreaterThan(resumed);
    // In mode "off" the pid the shell saw is the host's: it runs again, not stopped.
    if (mode === "off") expect(stateOf(inSandbox)).not.toBe("T");
  });

  it("a symlink swapped in by a background loop cannot win the race against a paused check and open", async () => {
    await writeFile(path.join(root, "target.txt"), "inside\n");
    const secretDir = tempDir(`bg-secret-${mode}`);
    await writeFile(path.join(secretDir, "secret"), "host secret\n");
    const out = collector();
    // The attacker: swap target.txt between a regular file and a symlink out of the tree, endlessly.
    await sandbox.start!(
      [
        "bash",
        "-c",
        `echo go; while :; do ln -sfn ${path.join(secretDir, "secret")} t.tmp && mv -Tf t.tmp target.txt; echo inside > t2 && mv -Tf t2 target.txt; done`,
      ],
      { onStdout: out.push },
    );
    await out.until(/go/);
    let leaked = 0;
    for (let i = 0; i < 200; i += 1) {
      const read = await sandbox.pausing!(async () => {
        // The host's check (no symlink) and then its open, as the path guard and Read do.
        const file = path.join(root, "target.txt");
        const info = await lstat(file).catch(() => null);
        if (info === null || info.isSymbolicLink()) return "refused";
        await new Promise((resolve) => setImmediate(resolve));
        return readFile(file, "utf8").catch(() => "gone");
      });
      if (read.includes("host secret")) leaked += 1;
    }
    expect(leaked).toBe(0);
    removeDir(secretDir);
  });

  it("a process started after a pause is stopped by the next one: what a pause remembers is not trusted once processes were created", async () => {
    const out = collector();
    await sandbox.start!(
      ["bash", "-c", "echo up; while [ ! -e go ]; do sleep 0.05; done; (while :; do echo t >> late-ticks; sleep 0.01; done) & echo forked; wait"],
      {
        onStdout: out.push,
      },
    );
    await out.until(/up/);
    await sandbox.pausing!(async () => undefined);
    await writeFile(path.join(root, "go"), "");
    await out.until(/forked/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ticks = () => readFileSync(path.join(root, "late-ticks"), "utf8").length;
    const during = await sandbox.pausing!(async () => {
      const before = ticks();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { before, after: ticks() };
    });
    expect(during.after).toBe(during.before);
  });

  it("nothing starts while the job is paused: a command waits for the pause to end", async () => {
    const out = collector();
    await sandbox.start!(["bash", "-c", "echo up; exec sleep 600"], { onStdout: out.push });
    await out.until(/up/);
    const order: string[] = [];
    const paused = sandbox.pausing!(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push("pause ended");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const command = sandbox.run("true", { timeoutMs: 30_000 }).then(() => order.push("command ran"));
    await Promise.all([paused, command]);
    expect(order).toEqual(["pause ended", "command ran"]);
  });

  it("a command waiting for a pause to end gives up when its job is stopped", async () => {
    const out = collector();
    await sandbox.start!(["bash", "-c", "echo up; exec sleep 600"], { onStdout: out.push });
    await out.until(/up/);
    const stop = new AbortController();
    let waiting: Promise<unknown> = Promise.resolve();
    const paused = sandbox.pausing!(async () => {
      waiting = sandbox.run("true", { timeoutMs: 30_000, signal: stop.signal }).catch((error: Error) => error.message);
      await new Promise((resolve) => setTimeout(resolve, 50));
      stop.abort();
      // The pause is still held: the command must not wait for it.
      return await waiting;
    });
    expect(await paused).toBe("command cancelled before it started");
  });

  it("without processes running beside it, pausing just runs the task", async () => {
    expect(sandbox.running).toBe(0);
    expect(await sandbox.pausing!(async () => "ran")).toBe("ran");
  });
});
