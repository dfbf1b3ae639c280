import { spawn, type ChildProcess } from "node:child_process";
import { chownSync, mkdirSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { detectSandbox } from "../../../src/workspace/index.js";
import { isRoot, processesMatching, removeDir, startCanaryServer, tempDir } from "./helpers.js";

/*
 * One job, one loopback and one /tmp: each scenario runs in its own Node process playing Tackle (as
 * root, or as uid 65534 as in the Docker image), so the host-side checks here see it from outside,
 * and so Tackle itself can be killed.
 */

const support = await detectSandbox();
const SANDBOX_MODULE = JSON.stringify(path.resolve("src/workspace/sandbox.ts"));

/** Pids whose network namespace is `netns`, seen by the test (root) from the host's /proc. */
function inNetns(netns: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/net`) === netns) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Waits (bounded) for the kernel to finish tearing namespaces down; returns what is left. */
async function settled(probe: () => unknown[]): Promise<unknown[]> {
  for (let i = 0; i < 100 && probe().length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  return probe();
}

interface Tackle {
  child: ChildProcess;
  /** The next JSON line the scenario prints. */
  next<T>(): Promise<T>;
  /** A line for the scenario's `await cue()`. */
  cue(): void;
  /** Closes its stdin and waits for it to exit. */
  finish(): Promise<void>;
}

/**
 * Starts `body` in a Node process with `createSandboxExec` in scope, `say(value)` printing a JSON line
 * and `await cue()` waiting for the test's next `cue()`. `unprivileged`: as uid 65534.
 */
function startTackle(body: string, unprivileged: boolean): Tackle {
  const script = `
    const { createSandboxExec } = await import(${SANDBOX_MODULE});
    const say = (value) => console.log(JSON.stringify(value));
    const cues = (await import("node:readline")).createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    const cue = () => cues.next();
    ${body}
  `;
  const node = ["node", "--import", "tsx", "--input-type=module", "-e", script];
  const argv = unprivileged ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", ...node] : node;
  const child = spawn(argv[0] ?? "node", argv.slice(1), {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    child,
    async next<T>() {
      for (;;) {
        const line = await lines.next();
        if (line.done) throw new Error(`the scenario ended early: ${stderr}`);
        if (line.value.startsWith("{")) return JSON.parse(line.value) as T;
      }
    },
    cue: () => child.stdin?.write("go\n"),
    async finish() {
      child.stdin?.end();
      child.kill("SIGKILL");
      await exited;
    },
  };
}

interface JobDirs {
  root: string;
  tmp: string;
}

/** Two jobs' checkouts and /tmp directories under `base`, the sandbox user's. */
function jobDirs(base: string): { a: JobDirs; b: JobDirs } {
  const job = (name: string): JobDirs => {
    const dirs = { root: path.join(base, name), tmp: path.join(base, `${name}.tmp`) };
    mkdirSync(dirs.root);
    mkdirSync(dirs.tmp, { mode: 0o700 });
    if (isRoot) for (const p of [dirs.root, dirs.tmp]) chownSync(p, 65534, 65534);
    return dirs;
  };
  if (isRoot) chownSync(base, 65534, 65534);
  return { a: job("a"), b: job("b") };
}

const sandboxOf = (dirs: JobDirs) =>
  `createSandboxExec({ root: ${JSON.stringify(dirs.root)}, mode: "bwrap", jobNamespace: true, tmpDir: ${JSON.stringify(dirs.tmp)} })`;

/**
 * Job A's listener on an ephemeral loopback port, serving one connection. It writes its port to A's
 * /tmp, which the test reads from the host (that directory is the host's) to know it listens.
 */
const LISTEN = `node -e 'const s = require("net").createServer((c) => { c.end("hello from job a\\n"); s.close(); }); s.listen(0, "127.0.0.1", () => require("fs").writeFileSync("/tmp/port", String(s.address().port))); setTimeout(() => process.exit(3), 60000).unref()'`;

/** `port`: a JavaScript expression. */
function connect(port: string): string {
  return `node -e 'require("net").connect(${port}, "127.0.0.1").on("data", (d) => process.stdout.write("got " + d)).on("error", (e) => console.log("error " + e.code))'`;
}

/** Until `probe` finds `count` things (bounded); a process appears a moment after its command starts. */
async function appeared<T>(probe: () => T[], count: number): Promise<T[]> {
  for (let i = 0; i < 200 && probe().length < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return probe();
}

function netnsOf(pid: string): string {
  return readlinkSync(`/proc/${pid}/ns/net`);
}

/** Pids of processes whose command line is exactly `sleep <seconds>` (not the scripts naming it). */
function sleepers(seconds: string): string[] {
  return processesMatching(`sleep ${seconds}`)
    .filter((line) => line.slice(line.indexOf(": ") + 2) === `sleep ${seconds}`)
    .map((line) => line.slice(0, line.indexOf(":")));
}

/** A command that leaves a background and a setsid'd sleep behind it, and waits. */
const SLEEPERS = (seconds: string) => `sleep ${seconds} & setsid sleep ${seconds} & wait`;

for (const unprivileged of [false, true]) {
  const group = unprivileged ? "started by an unprivileged Tackle (as in the Docker image)" : "started by Tackle as root";
  describe.skipIf(!support.available || (unprivileged && !isRoot))(`one network namespace and one /tmp per job, ${group}`, () => {
    it("commands of a job share loopback and /tmp; another job and the host's loopback are out of reach", async () => {
      const base = tempDir("job-netns");
      const { a, b } = jobDirs(base);
      const canary = await startCanaryServer();
      const portFile = JSON.stringify(path.join(a.tmp, "port"));
      const tackle = startTackle(
        `
        const { existsSync, readFileSync } = await import("node:fs");
        const a = ${sandboxOf(a)};
        const b = ${sandboxOf(b)};
        const wrote = await a.run("echo written by command one > /tmp/x", { timeoutMs: 20000 });
        // Command one listens; command two, started meanwhile, connects.
        const server = a.run(${JSON.stringify(`echo listening; ${LISTEN}; echo served`)}, { timeoutMs: 60000 });
        // The file exists a moment before its content is written: wait for the port itself.
        const portOf = () => (existsSync(${portFile}) ? readFileSync(${portFile}, "utf8").trim() : "");
        while (portOf() === "") await new Promise((r) => setTimeout(r, 20));
        const port = portOf();
        const fromB = await b.run(${JSON.stringify(connect("PORT"))}.replace("PORT", port) + "; cat /tmp/x || echo NO-X", { timeoutMs: 20000 });
        const fromA = await a.run("cat /tmp/x; " + ${JSON.stringify(connect('Number(require("fs").readFileSync("/tmp/port", "utf8"))'))}, { timeoutMs: 20000 });
        const served = await server;
        const outbound = await a.run(${JSON.stringify(connect(String(canary.port)))}, { timeoutMs: 20000 });
        await a.dispose();
        await b.dispose();
        say({ wrote: wrote.exitCode, fromA: fromA.output, fromB: fromB.output, served: served.output, outbound: outbound.output });
        `,
        unprivileged,
      );
      try {
        const seen = await tackle.next<{ wrote: number; fromA: string; fromB: string; served: string; outbound: string }>();
        expect(seen.wrote).toBe(0);
        // Command two reads what command one wrote in /tmp, and reaches its listener on 127.0.0.1.
        expect(seen.fromA).toBe("written by command one\ngot hello from job a\n");
        expect(seen.served).toBe("listening\nserved\n");
        // Job B, at the same time, has neither: its own loopback and its own /tmp.
        expect(seen.fromB).toBe("error ECONNREFUSED\ncat: /tmp/x: No such file or directory\nNO-X\n");
        // The job's loopback is its own: the host's 127.0.0.1 is not there, and there is nothing else.
        expect(seen.outbound).toBe("error ECONNREFUSED\n");
        expect(canary.hits).toBe(0);
      } finally {
        await tackle.finish();
        await canary.close();
        removeDir(base);
      }
    });

    it("dispose kills every process of the job, setsid'd ones and the holder included, as the host sees", async () => {
      const base = tempDir("job-netns");
      const { a } = jobDirs(base);
      const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
      const tackle = startTackle(
        `
        const a = ${sandboxOf(a)};
        const running = a.run(${JSON.stringify(SLEEPERS(seconds))}, { timeoutMs: 120000 }).then((r) => "finished " + r.exitCode, (e) => e.code);
        await cue();
        const quiet = await a.dispose();
        const ended = await running;
        say({ quiet, ended });
        await cue();
        `,
        unprivileged,
      );
      try {
        const sleeps = await appeared(() => sleepers(seconds), 2);
        expect(sleeps).toHaveLength(2);
        const netns = netnsOf(sleeps[0] ?? "");
        expect(netns).not.toBe(readlinkSync("/proc/self/ns/net"));
        // The two sleeps, the sandbox's own processes and the holder are all in the job's namespace.
        expect(inNetns(netns).length).toBeGreaterThanOrEqual(3);
        tackle.cue();
        const seen = await tackle.next<{ quiet: boolean; ended: string }>();
        expect(seen).toEqual({ quiet: true, ended: "aborted" });
        // Tackle is still running: what is gone was ended by dispose, not by Tackle's exit.
        expect(tackle.child.exitCode).toBeNull();
        expect(inNetns(netns)).toEqual([]);
        expect(sleepers(seconds)).toEqual([]);
      } finally {
        await tackle.finish();
        removeDir(base);
      }
    });

    it("when Tackle itself is killed, nothing of the job is left: no orphan holder, no orphan command", async () => {
      const base = tempDir("job-netns");
      const { a } = jobDirs(base);
      const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
      const tackle = startTackle(
        `
        const a = ${sandboxOf(a)};
        await a.run(${JSON.stringify(SLEEPERS(seconds))}, { timeoutMs: 120000 });
        `,
        unprivileged,
      );
      try {
        const sleeps = await appeared(() => sleepers(seconds), 2);
        expect(sleeps).toHaveLength(2);
        const netns = netnsOf(sleeps[0] ?? "");
        expect(inNetns(netns).length).toBeGreaterThanOrEqual(3);
        tackle.child.kill("SIGKILL");
        expect(await settled(() => inNetns(netns))).toEqual([]);
        expect(await settled(() => sleepers(seconds))).toEqual([]);
      } finally {
        await tackle.finish();
        removeDir(base);
      }
    });
  });
}
