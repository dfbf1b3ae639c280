// `tackle worker --port N` serves /healthz (200 while the process is up) and /readyz (200 while Redis
// answers, 503 otherwise), as the server does; without --port a worker opens no port. Each worker is a
// real process (startWorker as cli.ts calls it) against the fake GitHub and a real or unreachable Redis.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { deleteKeys, testRedis } from "../queue/redis-server.js";

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), "start-worker.ts");
const PASSWORD = "worker-health-redis-password";

interface Worker {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

let gh: FakeGitHub;
let redis: { url: string; stop(): Promise<void> };
let home: string;
const running: Worker[] = [];

beforeAll(async () => {
  gh = await startFakeGitHub();
  redis = await testRedis();
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-worker-health-"));
});
afterEach(async () => {
  for (const worker of running.splice(0)) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) {
      worker.child.kill("SIGKILL");
      await worker.exited;
    }
  }
});
afterAll(async () => {
  await deleteKeys(realRedisUrl(), "tackle").catch(() => undefined);
  await gh?.close();
  await redis?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** The test Redis on a database of its own: the worker uses the default queue name and prefix. */
function realRedisUrl(): string {
  const url = new URL(redis.url);
  url.pathname = "/15";
  return url.href;
}

function spawnWorker(env: { REDIS_URL: string; TEST_WORKER_PORT?: string }): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...gh.appEnv(),
      ANTHROPIC_API_KEY: "sk-ant-worker-health-test",
      TACKLE_HOME: home,
      TACKLE_SANDBOX: "off",
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const worker = { child, output: () => output, exited };
  running.push(worker);
  return worker;
}

async function waitForOutput(worker: Worker, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(worker.output());
    if (match) return match;
    if (worker.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} (exit ${worker.child.exitCode}); output:\n${worker.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function healthPort(worker: Worker): Promise<number> {
  return Number((await waitForOutput(worker, /health checks on port (\d+)/))[1]);
}

async function get(port: number, urlPath: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, { signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: await response.json() };
}

/** The TCP ports a process listens on, from its socket descriptors and the kernel's socket tables. */
async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const rows = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const row of rows) {
      const [, local, , state, , , , , , inode] = row.trim().split(/\s+/);
      // State 0A is LISTEN; the local address ends in the port, in hex.
      if (state === "0A" && inode && inodes.has(inode)) ports.push(Number.parseInt(local!.split(":").at(-1)!, 16));
    }
  }
  return ports;
}

describe("tackle worker --port", () => {
  it("with Redis answering: /healthz and /readyz 200, anything else 404; SIGTERM closes the port and exits 0", async () => {
    const worker = spawnWorker({ REDIS_URL: realRedisUrl(), TEST_WORKER_PORT: "0" });
    const port = await healthPort(worker);
    await waitForOutput(worker, /tackle worker consuming bullmq jobs/);
    expect(await get(port, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await get(port, "/readyz")).toEqual({ status: 200, body: { status: "ready" } });
    expect((await get(port, "/metrics/x?y=1")).status).toBe(404);
    expect((await get(port, "/api/github/webhooks")).status).toBe(404);
    // The listening-socket check below, seen to find a port that is there.
    expect(await listeningPorts(worker.child.pid!)).toEqual([port]);

    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("with Redis unreachable: /healthz 200, /readyz 503, and one warning naming the reason without the password", async () => {
    const worker = spawnWorker({ REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:1`, TEST_WORKER_PORT: "0" });
    const port = await healthPort(worker);
    expect(await get(port, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await get(port, "/readyz")).toEqual({ status: 503, body: { status: "not ready" } });

    await waitForOutput(worker, /"level":40[^\n]*Redis is unavailable/);
    const warnings = worker
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: string; redis?: string })
      .filter((line) => line.level === 40 && line.msg.includes("Redis is unavailable"));
    expect(warnings[0]!.err).toMatch(/ECONNREFUSED/);
    expect(warnings[0]!.redis).toBe("127.0.0.1:1");
    expect(worker.output()).not.toContain(PASSWORD);
    // Reconnects keep failing (one every ≤ 2 s); each connection warns once, not at every attempt.
    const labels = warnings.map((w) => w.msg.split(":")[0]);
    expect(new Set(labels).size).toBe(labels.length);

    // Idle, it stops on SIGTERM without waiting for a Redis that never answers.
    worker.child.kill("SIGTERM");
    const exit = await Promise.race([worker.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 8_000))]);
    if (exit === "still running") console.log(worker.output().split("\n").slice(-15).join("\n"));
    expect(exit).not.toBe("still running");
    expect(worker.child.exitCode).toBe(0);
  });

  it("without --port, a worker opens no port", async () => {
    const worker = spawnWorker({ REDIS_URL: realRedisUrl() });
    await waitForOutput(worker, /tackle worker consuming bullmq jobs/);
    expect(worker.output()).not.toMatch(/health checks/);
    expect(await listeningPorts(worker.child.pid!)).toEqual([]);
  });

  it("a bad --port is refused with the value, before anything starts", async () => {
    const appReads = gh.requests({ method: "GET", path: /\/app$/ }).length;
    const worker = spawnWorker({ REDIS_URL: realRedisUrl(), TEST_WORKER_PORT: "30o0" });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain('tackle: worker: --port must be an integer from 0 to 65535 (got "30o0")');
    expect(gh.requests({ method: "GET", path: /\/app$/ })).toHaveLength(appReads);
  });

  it("a --port in use is refused with the reason, and the worker exits", async () => {
    const first = spawnWorker({ REDIS_URL: realRedisUrl(), TEST_WORKER_PORT: "0" });
    const port = await healthPort(first);
    const second = spawnWorker({ REDIS_URL: realRedisUrl(), TEST_WORKER_PORT: String(port) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`tackle: cannot serve health checks on port ${port}: it is already in use`);
  });
});
