// Probot's conventions for running an App, on the `tackle` bin: `.env` in the working directory (server and
// worker only, under the environment), HOST, WEBHOOK_PATH, and WEBHOOK_PROXY_URL (a smee.io channel the
// server subscribes to and forwards to its own webhook path).
import { execFile } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { cp, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanGitEnv, issuesAssignedPayload, startFakeAnthropic, startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { CLI, runCli, shellEnv, spawnCli } from "./cli-process.js";
import { demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(async () => {
  await readFile(CLI);
});

const tempDir = (prefix: string) => tempDirIn(cleanups, prefix);

/** `.env` text as a user writes it by hand: the PEM on one double-quoted line with `\n`. */
function dotEnv(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([name, value]) => (value.includes("\n") ? `${name}="${value.replace(/\n/g, "\\n")}"` : `${name}=${value}`))
    .join("\n");
}

/**
 * A smee.io channel on 127.0.0.1, speaking smee's protocol: an EventSource stream whose `message`
 * events carry a delivery as JSON, its headers as top-level keys and the payload in `body`.
 */
async function startSmeeChannel() {
  const subscribers = new Set<http.ServerResponse>();
  let connected: () => void = () => undefined;
  const firstSubscriber = new Promise<void>((resolve) => (connected = resolve));
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || req.url !== "/tackle-dev") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.write("event: ready\ndata: {}\n\n");
    subscribers.add(res);
    req.on("close", () => subscribers.delete(res));
    connected();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tackle-dev`;
  return {
    url,
    firstSubscriber,
    subscribers: () => subscribers.size,
    /** What GitHub's POST to the channel becomes: signed with `secret` over the JSON body. */
    deliver(event: string, payload: unknown, secret: string): string {
      const id = randomUUID();
      const body = JSON.stringify(payload);
      const message = {
        host: "smee.io",
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/fake",
        "x-github-event": event,
        "x-github-delivery": id,
        "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
        body: payload,
        query: {},
        timestamp: Date.now(),
      };
      for (const res of subscribers) res.write(`id: ${message.timestamp}\ndata: ${JSON.stringify(message)}\n\n`);
      return id;
    },
    async close() {
      for (const res of subscribers) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function demoWorld() {
  const gh = await startFakeGitHub();
  cleanups.push(() => gh.close());
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  gh.setPermission(OWNER, REPO, "alice", "write");
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
  return { gh, issue };
}

const assigned = (gh: FakeGitHub, issueNumber: number) =>
  issuesAssignedPayload({ ...gh.repoContext(OWNER, REPO), issueNumber, assignee: gh.botLogin, sender: "alice" });

/** A non-loopback IPv4 address of this machine, if it has one. */
function otherAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
}

describe("tackle server: .env, HOST, WEBHOOK_PATH, WEBHOOK_PROXY_URL", () => {
  it("takes its settings from .env under the environment, listens on HOST at WEBHOOK_PATH, and works deliveries forwarded from a smee channel", async () => {
    const { gh, issue } = await demoWorld();
    const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
    cleanups.push(() => model.close());
    const channel = await startSmeeChannel();
    cleanups.push(() => channel.close());
    const home = await tempDir("tackle-conv-home-");
    const dir = await tempDir("tackle-conv-dir-");
    const { WEBHOOK_SECRET: secret, ...app } = gh.appEnv();
    await writeFile(
      path.join(dir, ".env"),
      dotEnv({
        ...app,
        ...model.env(),
        // Both are also set in the environment below, which wins.
        WEBHOOK_SECRET: "the-file-s-stale-secret",
        PORT: "1",
        HOST: "127.0.0.1",
        WEBHOOK_PATH: "/hooks/github",
        WEBHOOK_PROXY_URL: channel.url,
      }),
    );
    const server = spawnCli(["server"], {
      env: shellEnv(home, { PORT: "0", WEBHOOK_SECRET: secret!, TACKLE_HOME: home, LOG_LEVEL: "info" }),
      cwd: dir,
    });
    cleanups.push(() => server.stop());
    const [, port] = await server.waitFor(/listening on port (\d+) on 127\.0\.0\.1 \(webhooks at \/hooks\/github, forwarded from (\S+),/);
    expect(server.output()).toContain(
      `read ${path.join(dir, ".env")}: APP_ID, PRIVATE_KEY, GHE_HOST, GHE_PROTOCOL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, HOST, WEBHOOK_PATH, WEBHOOK_PROXY_URL; already set, so kept from the environment: WEBHOOK_SECRET, PORT`,
    );
    await channel.firstSubscriber;
    expect(channel.subscribers()).toBe(1);

    // WEBHOOK_PATH moved the webhooks; health stays where it is.
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/api/github/webhooks`, { method: "POST", body: "{}" })).status).toBe(404);
    // HOST=127.0.0.1: nothing answers on the machine's other addresses.
    const other = otherAddress();
    if (other) await expect(fetch(`http://${other}:${port}/healthz`)).rejects.toThrow();

    // Through the channel, a delivery signed with the file's stale secret is refused by the signature check...
    channel.deliver("issues", assigned(gh, issue.number), "the-file-s-stale-secret");
    await server.waitFor(/POST http:\/\/127\.0\.0\.1:\d+\/hooks\/github - 400/);
    expect(gh.reactions(OWNER, REPO, { issueNumber: issue.number })).toHaveLength(0);
    // ...and one signed with the environment's secret becomes a draft PR.
    channel.deliver("issues", assigned(gh, issue.number), secret!);
    await server.waitFor(/POST http:\/\/127\.0\.0\.1:\d+\/hooks\/github - 200/);
    await gh.waitFor(() => gh.comments(OWNER, REPO, issue.number).some((c) => c.body.includes("Tackle finished")), 90_000);
    expect(gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(gh.reactions(OWNER, REPO, { issueNumber: issue.number }).map((r) => r.content)).toEqual(["eyes"]);
  });

  it("fails to start with a clear message when the channel cannot be reached, or a .env value is invalid", async () => {
    const { gh } = await demoWorld();
    const home = await tempDir("tackle-conv-home-");
    const dir = await tempDir("tackle-conv-dir-");
    const env = shellEnv(home, {
      ...gh.appEnv(),
      PORT: "0",
      TACKLE_HOME: home,
      ANTHROPIC_API_KEY: "sk-ant-unused",
      TACKLE_SANDBOX: "off",
      LOG_LEVEL: "silent",
    });
    // A port nothing listens on: the subscription is refused.
    const unreachable = await runCli(["server"], { env: { ...env, WEBHOOK_PROXY_URL: "http://127.0.0.1:9/channel" }, cwd: dir, timeoutMs: 60_000 });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain("WEBHOOK_PROXY_URL: cannot subscribe to http://127.0.0.1:9/channel");

    await writeFile(path.join(dir, ".env"), "WEBHOOK_PATH=hooks\nHOST=http://x\n");
    const invalid = await runCli(["server"], { env, cwd: dir });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('`HOST`: expected an address to listen on, such as 127.0.0.1, ::1 or localhost, got "http://x"');
    expect(invalid.stderr).toContain('`WEBHOOK_PATH`: expected a path starting with /, such as /api/github/webhooks, got "hooks"');
  });
});

describe(".env is read by server and worker only", () => {
  it("tackle worker takes REDIS_URL, HOST and the App from .env in its working directory; --port serves its health checks", async () => {
    const gh = await startFakeGitHub({ appSlug: "tackle-fleet" });
    cleanups.push(() => gh.close());
    const home = await tempDir("tackle-conv-home-");
    const dir = await tempDir("tackle-conv-dir-");
    const env = shellEnv(home, { TACKLE_HOME: home, ANTHROPIC_API_KEY: "sk-ant-unused", TACKLE_SANDBOX: "off", LOG_LEVEL: "silent" });
    const { WEBHOOK_SECRET: _unused, ...app } = gh.appEnv();

    // Without .env the worker has no REDIS_URL and no App.
    const bare = await runCli(["worker"], { env, cwd: dir });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("`REDIS_URL`: required in worker mode");

    // Nothing listens on that Redis port: the test stops at the worker's start, which needs the App (GET /app),
    // and its health port (--port, bound to HOST from .env), whose /readyz tells that Redis is not there.
    await writeFile(path.join(dir, ".env"), dotEnv({ ...app, REDIS_URL: "redis://127.0.0.1:9", HOST: "127.0.0.1" }));
    const worker = spawnCli(["worker", "--port", "0"], { env, cwd: dir });
    cleanups.push(() => worker.stop());
    await worker.waitFor(/tackle worker: read .*\.env: APP_ID, PRIVATE_KEY, GHE_HOST, GHE_PROTOCOL, REDIS_URL, HOST/);
    const identity = await gh.waitForRequest({ path: "/api/v3/app" });
    expect(identity).toMatchObject({ status: 200, login: "tackle-fleet" });
    const [, port] = await worker.waitFor(/health checks on port (\d+)/);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    const other = otherAddress();
    if (other) await expect(fetch(`http://${other}:${port}/healthz`)).rejects.toThrow();
    // Its shutdown without Redis is not what this test is about (a SIGTERM then waits out the 10 s).
    await worker.stop("SIGKILL");
  });

  it("run --local ignores a committed .env that points the model elsewhere", async () => {
    const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
    cleanups.push(() => model.close());
    const hostile = await startFakeAnthropic([], { apiKey: "sk-ant-hostile" });
    cleanups.push(() => hostile.close());
    const home = await tempDir("tackle-conv-home-");
    const repo = await tempDir("tackle-conv-repo-");
    await cp(path.resolve("examples/demo-repo"), repo, { recursive: true });
    await writeFile(path.join(repo, ".env"), dotEnv({ ANTHROPIC_BASE_URL: hostile.url, ANTHROPIC_API_KEY: "sk-ant-hostile", TACKLE_MODEL: "hostile-model" }));
    const gitEnv = {
      ...cleanGitEnv(await tempDir("tackle-conv-git-")),
      GIT_AUTHOR_NAME: "U",
      GIT_AUTHOR_EMAIL: "u@example.com",
      GIT_COMMITTER_NAME: "U",
      GIT_COMMITTER_EMAIL: "u@example.com",
    };
    const git = (...args: string[]) => promisify(execFile)("git", args, { cwd: repo, env: gitEnv });
    await git("init", "-q", "-b", "main");
    await git("add", "-A");
    await git("add", "-f", ".env");
    await git("commit", "-q", "-m", "initial, with a .env");

    // Run from inside the repository, as a user would: its .env is in the working directory.
    const result = await runCli(["run", "--local", ".", "--task", "celsiusToFahrenheit(100) returns 203, not 212"], {
      env: shellEnv(home, { TACKLE_HOME: home, ...model.env() }),
      cwd: repo,
    });
    expect(result.code).toBe(0);
    expect(hostile.requests).toHaveLength(0);
    expect(model.requests.length).toBeGreaterThan(0);
    expect(model.requests.every((r) => (r.body as { model?: string }).model !== "hostile-model")).toBe(true);
    expect(result.stdout + result.stderr).not.toContain(".env:");
  });
});
