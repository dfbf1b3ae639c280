import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import net from "node:net";
import { Redis } from "ioredis";

/** A private redis-server for one test file: no persistence, stopped by PID. */
export interface OwnRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM to its PID) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForPing(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    client.on("error", () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === "PONG") return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis at ${url} did not answer within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
}

/**
 * `persistent`: an append-only file in a temp directory, so a restart keeps the data, as a production
 * Redis for BullMQ does; otherwise a restart loses everything.
 */
export async function startOwnRedis(options: { persistent?: boolean } = {}): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const dir = options.persistent ? await mkdtemp(path.join(tmpdir(), "tackle-redis-")) : undefined;
  const persistence = dir ? ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir] : ["--appendonly", "no"];
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence], {
      stdio: "ignore",
    });
    await waitForPing(url, 10_000);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running?.pid || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    process.kill(running.pid, "SIGTERM");
    await exited;
  };
  await start();
  return {
    url,
    port,
    start,
    async stop() {
      await stop();
      // A stop() between tests ends the server for good only when the caller does not start it again;
      // the data directory goes with the process that made it.
      if (dir) process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    },
  };
}

/**
 * The Redis for integration tests: `TACKLE_TEST_REDIS_URL` (CI starts a private one) or a server of
 * our own; never the machine's Redis on 6379.
 */
export async function testRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = process.env.TACKLE_TEST_REDIS_URL;
  if (given) return { url: given, stop: async () => undefined };
  const own = await startOwnRedis();
  return { url: own.url, stop: own.stop };
}

/** Deletes every key under `prefix:` (each test uses its own prefix). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  try {
    let cursor = "0";
    do {
      const [next, found] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (found.length > 0) await client.del(...found);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}
