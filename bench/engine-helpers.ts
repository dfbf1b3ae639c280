/**
 * Shared pieces of the job-engine benchmarks: Tackle's App over the fake GitHub Enterprise Server and
 * the fake Anthropic with many installations, paced signed deliveries, acknowledgement times read
 * from the fake's request log, and a private Redis.
 *
 * The fakes and the webhook sender run in a child process (this same file, started with
 * TACKLE_BENCH_FAKES=1), as GitHub does in production: the fake GitHub spawns `git` for every
 * contents read and every seeded commit, and a spawn holds the calling event loop for tens of
 * milliseconds on a busy machine. In the benchmark's own process those pauses would be charged to
 * Tackle's acknowledgement.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../src/logging/logger.js";
import { createTackleApp, WEBHOOK_PATH, type TackleApp } from "../src/main/server.js";
import {
  issuesAssignedPayload,
  sendWebhook,
  startFakeAnthropic,
  startFakeGitHub,
  type FakeAnthropic,
  type FakeGitHub,
  type RequestLogEntry,
  type ScriptedModel,
} from "../test/fakes/index.js";

export { startOwnRedis, type OwnRedis } from "../test/integration/queue/redis-server.js";

export const REPO = "widgets";

/** A model that ends every job at its first turn, so jobs cost a clone and little else. */
export const doneAtOnce: ScriptedModel = () => ({
  content: [{ type: "tool_use", name: "task_done", input: { summary: "Nothing to change." } }],
  stop_reason: "tool_use",
});

export interface AckSample {
  /** Epoch ms just before the delivery was sent. */
  sentAt: number;
  /** When Tackle answered the webhook (NaN: not within the wait), and with what. */
  answeredAt: number;
  status: number;
  /** When the 👀 reaction and the tracking comment reached the fake (NaN: not within the wait). */
  eyesAt: number;
  commentAt: number;
}

interface SeedRequest {
  owners: string[];
  issuesPerOwner: number;
  firstInstallationId: number;
}

interface Seeded {
  env: Record<string, string>;
  issues: Array<{ owner: string; number: number }>;
}

interface DeliverRequest {
  webhookUrl: string;
  intervalMs: number;
  /** How long to wait for the acknowledgements after the last delivery went out. */
  waitMs: number;
}

type Request = { id: number } & ({ op: "seed"; args: SeedRequest } | { op: "deliver"; args: DeliverRequest } | { op: "close" });
type Reply = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: string };

// ---- the child: fakes and sender -------------------------------------------------------------

const issueKey = (owner: string, number: number): string => `${owner.toLowerCase()}#${number}`;
const ACK_PATH = /^\/api\/v3\/repos\/([^/]+)\/[^/]+\/issues\/(\d+)\/(reactions|comments)$/;

/** Runs `task` over `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
  }));
}

async function seed(args: SeedRequest): Promise<{ gh: FakeGitHub; model: FakeAnthropic; seeded: Seeded }> {
  const gh = await startFakeGitHub({ firstInstallationId: args.firstInstallationId });
  await inBatches(args.owners, 6, async (owner) => {
    await gh.addRepo({ owner, name: REPO, files: { "README.md": `# ${owner}/${REPO}\n` } });
    gh.setPermission(owner, REPO, "alice", "write");
  });
  const issues: Seeded["issues"] = [];
  for (let i = 0; i < args.issuesPerOwner; i++) {
    for (const owner of args.owners) {
      const issue = gh.addIssue({ owner, repo: REPO, title: `Issue ${i + 1} of ${owner}` });
      issues.push({ owner, number: issue.number });
    }
  }
  const model = await startFakeAnthropic(doneAtOnce, { minCacheableTokens: 0 });
  return { gh, model, seeded: { env: { ...gh.appEnv(), ...model.env() }, issues } };
}

/**
 * Sends one `issues.assigned` delivery per issue, the i-th at `start + i × intervalMs` (not waiting
 * for earlier answers, as GitHub does not), and reads from the request log when the first 👀 and the
 * first comment of each issue arrived.
 */
async function deliver(gh: FakeGitHub, issues: Seeded["issues"], args: DeliverRequest): Promise<AckSample[]> {
  const firsts = new Map<string, { eyesAt?: number; commentAt?: number }>();
  const note = (entry: RequestLogEntry): void => {
    const match = entry.method === "POST" && entry.status < 300 ? ACK_PATH.exec(entry.path) : null;
    if (!match) return;
    const key = issueKey(match[1]!, Number(match[2]));
    const seen = firsts.get(key) ?? {};
    if (match[3] === "reactions") seen.eyesAt ??= entry.at;
    else seen.commentAt ??= entry.at;
    firsts.set(key, seen);
  };
  const stopListening = gh.onRequest(note);
  const answers = new Map<string, { answeredAt: number; status: number }>();
  const sentAt = new Map<string, number>();
  try {
    const start = Date.now() + 50;
    const sends = issues.map(async ({ owner, number }, i) => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + i * args.intervalMs - Date.now())));
      sentAt.set(issueKey(owner, number), Date.now());
      const response = await sendWebhook({
        url: args.webhookUrl,
        secret: gh.webhookSecret,
        event: "issues",
        payload: issuesAssignedPayload({ ...gh.repoContext(owner, REPO), issueNumber: number, assignee: gh.botLogin, sender: "alice" }),
      }).catch(() => ({ status: 0 }));
      answers.set(issueKey(owner, number), { answeredAt: Date.now(), status: response.status });
    });
    const lastSent = new Promise((resolve) => setTimeout(resolve, Math.max(0, start + (issues.length - 1) * args.intervalMs - Date.now())));
    const allAnswered = Promise.all(sends);
    const complete = () =>
      answers.size === issues.length &&
      issues.every(({ owner, number }) => {
        const seen = firsts.get(issueKey(owner, number));
        return seen?.eyesAt !== undefined && seen.commentAt !== undefined;
      });
    await lastSent;
    await gh.waitFor(complete, args.waitMs).catch(() => undefined);
    void allAnswered;
    return issues.map(({ owner, number }) => {
      const key = issueKey(owner, number);
      const seen = firsts.get(key) ?? {};
      const answer = answers.get(key);
      return {
        sentAt: sentAt.get(key) ?? Number.NaN,
        answeredAt: answer?.answeredAt ?? Number.NaN,
        status: answer?.status ?? 0,
        eyesAt: seen.eyesAt ?? Number.NaN,
        commentAt: seen.commentAt ?? Number.NaN,
      };
    });
  } finally {
    stopListening();
  }
}

async function serveFakes(): Promise<void> {
  let fakes: Awaited<ReturnType<typeof seed>> | undefined;
  const handle = async (request: Request): Promise<unknown> => {
    switch (request.op) {
      case "seed":
        fakes = await seed(request.args);
        return fakes.seeded;
      case "deliver":
        if (!fakes) throw new Error("deliver before seed");
        return deliver(fakes.gh, fakes.seeded.issues, request.args);
      case "close":
        await fakes?.model.close();
        await fakes?.gh.close();
        fakes = undefined;
        return undefined;
    }
  };
  process.on("message", (message: Request) => {
    handle(message).then(
      (result) => process.send!({ id: message.id, ok: true, result } satisfies Reply),
      (error: unknown) => process.send!({ id: message.id, ok: false, error: String(error instanceof Error ? error.stack : error) } satisfies Reply),
    );
  });
  process.on("disconnect", () => process.exit(0));
}

if (process.env.TACKLE_BENCH_FAKES === "1" && process.send) void serveFakes();

// ---- the parent: Tackle ------------------------------------------------------------------------

export interface Engine {
  app: TackleApp;
  webhookUrl: string;
  /** Every issue, in the order deliveries go out. */
  issues: Array<{ owner: string; number: number }>;
  /** Delivers to every issue at `intervalMs` apart; waits up to `waitMs` after the last for the acks. */
  deliver(intervalMs: number, waitMs: number): Promise<AckSample[]>;
  close(): Promise<void>;
}

function startFakesProcess(): { call: (request: Omit<Request, "id">) => Promise<unknown>; stop: () => Promise<void> } {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, TACKLE_BENCH_FAKES: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  child.on("message", (reply: Reply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiter?.resolve(reply.result);
    else waiter?.reject(new Error(`fakes process: ${reply.error}`));
  });
  child.on("exit", (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`fakes process exited (${code})`));
    pending.clear();
  });
  return {
    call: (request) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        child.send({ ...request, id });
      }),
    async stop() {
      if (child.exitCode !== null || !child.pid) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.disconnect();
      const timer = setTimeout(() => child.pid && process.kill(child.pid, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The App over a fake GitHub holding `owners.length` installations (one `widgets` repo each, alice
 * with write access) and `issuesPerOwner` open issues per repo, with production Octokit settings
 * (Probot's throttling and retries, keyed per installation). `firstInstallationId` keeps runs in one
 * process apart: the throttling limiters are process-wide and keyed by installation id.
 */
export async function startEngine(options: SeedRequest & { redisUrl?: string; withWorker: boolean }): Promise<Engine> {
  const fakes = startFakesProcess();
  const home = await mkdtemp(path.join(os.tmpdir(), "tackle-bench-engine-"));
  let app: TackleApp | undefined;
  let server: http.Server | undefined;
  try {
    const { owners, issuesPerOwner, firstInstallationId } = options;
    const seeded = (await fakes.call({ op: "seed", args: { owners, issuesPerOwner, firstInstallationId } })) as Seeded;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ...seeded.env,
      TACKLE_HOME: home,
      LOG_LEVEL: "silent",
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    };
    app = await createTackleApp(env, { withWorker: options.withWorker, logger: silentLogger, octokit: { throttle: true, retry: true } });
    server = http.createServer(app.handler);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${WEBHOOK_PATH}`;
    const running = { app, server };
    return {
      app,
      webhookUrl,
      issues: seeded.issues,
      deliver: async (intervalMs, waitMs) => (await fakes.call({ op: "deliver", args: { webhookUrl, intervalMs, waitMs } })) as AckSample[],
      async close() {
        await running.app.close(1_000);
        running.server.closeAllConnections();
        await new Promise<void>((resolve) => running.server.close(() => resolve()));
        await fakes.call({ op: "close" }).catch(() => undefined);
        await fakes.stop();
        await rm(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.close(0).catch(() => undefined);
    server?.close();
    await fakes.stop();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}

/** Seconds with three decimals (one from 10 s), or "n/a". */
export const seconds = (value: number): string => (Number.isFinite(value) ? `${(value / 1000).toFixed(Math.abs(value) < 10_000 ? 3 : 1)} s` : "n/a");

/** Resolves once `condition` holds, polling every `everyMs`; rejects after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
