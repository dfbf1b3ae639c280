/**
 * Shared pieces of the job-engine benchmarks: Tackle's App over the fake GitHub Enterprise Server and
 * the fake Anthropic with many installations, paced signed deliveries, acknowledgement times read
 * from the fake's request log, and a private Redis.
 *
 * An engine is two child processes, both this file (TACKLE_BENCH_ROLE picks the part):
 *  - "fakes": the fake GitHub, the fake Anthropic and the webhook sender, apart from Tackle as GitHub
 *    is in production. The fake GitHub spawns `git` for every contents read and seeded commit, and a
 *    spawn holds the calling event loop for tens of milliseconds on a busy machine; in Tackle's
 *    process those pauses would be charged to the acknowledgement.
 *  - "tackle": the App (`createTackleApp`) on its own port. Octokit's throttling limiters are
 *    process-wide, so each engine starts with none queued, and an engine whose writes are still
 *    queued when the measurement ends is stopped by its PID instead of draining for minutes.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../src/logging/logger.js";
import { createTackleApp, createTackleServer, WEBHOOK_PATH, type TackleApp } from "../src/main/server.js";
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
/** The installation that takes the warm-up delivery, outside every measured one. */
const WARM_UP_OWNER = "warmup";

/** A model that ends every job at its first turn, so jobs cost a clone and little else. */
export const doneAtOnce: ScriptedModel = () => ({
  content: [{ type: "tool_use", name: "task_done", input: { summary: "Nothing to change." } }],
  stop_reason: "tool_use",
});

/** One delivery, as epoch ms on the machine's clock; NaN for what did not happen within the wait. */
export interface AckSample {
  /** Just before the delivery was sent. */
  sentAt: number;
  /** When Tackle answered the webhook, and with what (0: no answer). */
  answeredAt: number;
  status: number;
  /** When the fake received the installation token request, the config read and the permission check of the delivery's installation (first of each). */
  tokenAt: number;
  configAt: number;
  permissionAt: number;
  /** When the 👀 reaction and the tracking comment reached the fake. */
  eyesAt: number;
  commentAt: number;
}

interface SeedRequest {
  owners: string[];
  issuesPerOwner: number;
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

interface StartRequest {
  env: Record<string, string>;
  withWorker: boolean;
}

/** Tackle's event loop while deliveries arrived: how long callbacks waited (ms). */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

type Request = { id: number; op: string; args?: unknown };
type Reply = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: string };

/** Answers the parent's requests with `handle`; exits when the parent goes away. */
function serve(handle: (op: string, args: unknown) => Promise<unknown>): void {
  process.on("message", (message: Request) => {
    handle(message.op, message.args).then(
      (result) => process.send!({ id: message.id, ok: true, result } satisfies Reply),
      (error: unknown) => process.send!({ id: message.id, ok: false, error: String(error instanceof Error ? error.stack : error) } satisfies Reply),
    );
  });
  process.on("disconnect", () => process.exit(0));
}

// ---- child "fakes": the fake GitHub, the fake model, the sender ---------------------------------

const issueKey = (owner: string, number: number): string => `${owner.toLowerCase()}#${number}`;
const REPO_PATH = /^\/api\/v3\/repos\/([^/]+)\/[^/]+\/(.*)$/;
const TOKEN_PATH = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/;

/** Runs `task` over `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

async function seed(args: SeedRequest): Promise<{ gh: FakeGitHub; model: FakeAnthropic; seeded: Seeded }> {
  const gh = await startFakeGitHub();
  await inBatches([WARM_UP_OWNER, ...args.owners], 6, async (owner) => {
    await gh.addRepo({ owner, name: REPO, files: { "README.md": `# ${owner}/${REPO}\n` } });
    gh.setPermission(owner, REPO, "alice", "write");
  });
  gh.addIssue({ owner: WARM_UP_OWNER, repo: REPO, title: "Warm-up" });
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

/** First arrival times of the requests that make up an acknowledgement, by owner and by issue. */
function ackLog(gh: FakeGitHub) {
  const ownerOf = new Map([...gh.state.installations.values()].map((i) => [String(i.id), i.account.toLowerCase()]));
  const byOwner = new Map<string, { tokenAt?: number; configAt?: number; permissionAt?: number }>();
  const byIssue = new Map<string, { eyesAt?: number; commentAt?: number }>();
  const note = (entry: RequestLogEntry): void => {
    if (entry.status >= 300 && entry.status !== 404) return;
    const token = TOKEN_PATH.exec(entry.path);
    if (token && entry.method === "POST") {
      const owner = ownerOf.get(token[1]!);
      if (owner) byOwner.set(owner, { tokenAt: entry.at, ...byOwner.get(owner) });
      return;
    }
    const match = REPO_PATH.exec(entry.path);
    if (!match) return;
    const owner = match[1]!.toLowerCase();
    const rest = match[2]!;
    const seen = byOwner.get(owner) ?? {};
    byOwner.set(owner, seen);
    if (entry.method === "GET" && rest.startsWith("contents/.github")) seen.configAt ??= entry.at;
    if (entry.method === "GET" && rest.startsWith("collaborators/")) seen.permissionAt ??= entry.at;
    const write = entry.method === "POST" && entry.status < 300 ? /^issues\/(\d+)\/(reactions|comments)$/.exec(rest) : null;
    if (!write) return;
    const key = issueKey(owner, Number(write[1]));
    const acks = byIssue.get(key) ?? {};
    byIssue.set(key, acks);
    if (write[2] === "reactions") acks.eyesAt ??= entry.at;
    else acks.commentAt ??= entry.at;
  };
  return { byOwner, byIssue, stop: gh.onRequest(note) };
}

/**
 * One warm-up delivery (its own installation, awaited), then one `issues.assigned` delivery per issue,
 * the i-th at `start + i × intervalMs`, not waiting for earlier answers (GitHub does not).
 */
async function deliver(gh: FakeGitHub, issues: Seeded["issues"], args: DeliverRequest): Promise<AckSample[]> {
  const send = (owner: string, number: number) =>
    sendWebhook({
      url: args.webhookUrl,
      secret: gh.webhookSecret,
      event: "issues",
      payload: issuesAssignedPayload({ ...gh.repoContext(owner, REPO), issueNumber: number, assignee: gh.botLogin, sender: "alice" }),
    }).catch(() => ({ status: 0 }));
  await send(WARM_UP_OWNER, 1);
  const log = ackLog(gh);
  const sent = new Map<string, number>();
  const answers = new Map<string, { answeredAt: number; status: number }>();
  try {
    const start = Date.now() + 50;
    for (const [i, { owner, number }] of issues.entries()) {
      void (async () => {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + i * args.intervalMs - Date.now())));
        sent.set(issueKey(owner, number), Date.now());
        const response = await send(owner, number);
        answers.set(issueKey(owner, number), { answeredAt: Date.now(), status: response.status });
      })();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + (issues.length - 1) * args.intervalMs - Date.now())));
    const complete = () =>
      issues.every(({ owner, number }) => {
        const key = issueKey(owner, number);
        const acks = log.byIssue.get(key);
        return answers.has(key) && acks?.eyesAt !== undefined && acks.commentAt !== undefined;
      });
    await gh.waitFor(complete, args.waitMs).catch(() => undefined);
    return issues.map(({ owner, number }) => {
      const key = issueKey(owner, number);
      const perOwner = log.byOwner.get(owner.toLowerCase()) ?? {};
      const acks = log.byIssue.get(key) ?? {};
      const answer = answers.get(key);
      return {
        sentAt: sent.get(key) ?? Number.NaN,
        answeredAt: answer?.answeredAt ?? Number.NaN,
        status: answer?.status ?? 0,
        tokenAt: perOwner.tokenAt ?? Number.NaN,
        configAt: perOwner.configAt ?? Number.NaN,
        permissionAt: perOwner.permissionAt ?? Number.NaN,
        eyesAt: acks.eyesAt ?? Number.NaN,
        commentAt: acks.commentAt ?? Number.NaN,
      };
    });
  } finally {
    log.stop();
  }
}

function serveFakes(): void {
  let fakes: Awaited<ReturnType<typeof seed>> | undefined;
  serve(async (op, args) => {
    if (op === "seed") {
      fakes = await seed(args as SeedRequest);
      return fakes.seeded;
    }
    if (op === "deliver") {
      if (!fakes) throw new Error("deliver before seed");
      return deliver(fakes.gh, fakes.seeded.issues, args as DeliverRequest);
    }
    if (op === "close") {
      await fakes?.model.close();
      await fakes?.gh.close();
      fakes = undefined;
      return undefined;
    }
    throw new Error(`unknown op ${op}`);
  });
}

// ---- child "tackle": the App --------------------------------------------------------------------

function serveTackle(): void {
  let running: { app: TackleApp; server: http.Server } | undefined;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  serve(async (op, args) => {
    if (op === "start") {
      const { env, withWorker } = args as StartRequest;
      // Production settings: Probot's Octokit with throttling and retries, keyed per installation.
      const app = await createTackleApp(env, { withWorker, logger: silentLogger, octokit: { throttle: true, retry: true } });
      const server = createTackleServer(app);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      running = { app, server };
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}${WEBHOOK_PATH}`;
    }
    if (op === "watch-loop") {
      loop.reset();
      loop.enable();
      return undefined;
    }
    if (op === "loop") {
      loop.disable();
      const msOf = (ns: number) => ns / 1e6;
      return { p50: msOf(loop.percentile(50)), p99: msOf(loop.percentile(99)), max: msOf(loop.max) } satisfies LoopDelay;
    }
    if (op === "close") {
      await running?.app.close(1_000);
      running?.server.closeAllConnections();
      running?.server.close();
      running = undefined;
      return undefined;
    }
    throw new Error(`unknown op ${op}`);
  });
}

const role = process.env.TACKLE_BENCH_ROLE;
if (process.send && role === "fakes") serveFakes();
if (process.send && role === "tackle") serveTackle();

// ---- the parent ---------------------------------------------------------------------------------

interface Child {
  call<T>(op: string, args?: unknown): Promise<T>;
  /** Disconnects, then SIGKILLs this child by its PID if it has not exited within `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

function startChild(childRole: "fakes" | "tackle"): Child {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, TACKLE_BENCH_ROLE: childRole },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  child.on("message", (reply: Reply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiter?.resolve(reply.result);
    else waiter?.reject(new Error(`${childRole} process: ${reply.error}`));
  });
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      for (const waiter of pending.values()) waiter.reject(new Error(`${childRole} process exited (${code ?? signal})`));
      pending.clear();
      resolve();
    }),
  );
  return {
    call: <T>(op: string, args?: unknown) =>
      new Promise<T>((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, op, args } satisfies Request);
      }),
    async stop(graceMs) {
      if (child.exitCode === null && child.signalCode === null) {
        if (child.connected) child.disconnect();
        const timer = setTimeout(() => {
          if (child.pid && child.exitCode === null) process.kill(child.pid, "SIGKILL");
        }, graceMs);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

export interface Engine {
  /** Every measured issue, in the order deliveries go out. */
  issues: Array<{ owner: string; number: number }>;
  /** A warm-up delivery, then one per issue `intervalMs` apart; waits up to `waitMs` after the last for the acks. */
  deliver(intervalMs: number, waitMs: number): Promise<{ samples: AckSample[]; loop: LoopDelay }>;
  /** Closes the App (1 s drain); stops it by PID when its queued GitHub writes would keep it longer. */
  close(): Promise<void>;
}

/**
 * Tackle's App over a fake GitHub holding one installation per owner (one `widgets` repo each, alice
 * with write access) with `issuesPerOwner` open issues each, in its own process with production
 * Octokit settings. With `redisUrl`, BullMQ; without, the embedded queue runs the jobs in the App.
 */
export async function startEngine(options: SeedRequest & { redisUrl?: string; withWorker: boolean }): Promise<Engine> {
  const fakes = startChild("fakes");
  const tackle = startChild("tackle");
  const home = await mkdtemp(path.join(os.tmpdir(), "tackle-bench-engine-"));
  const stop = async (): Promise<void> => {
    await Promise.race([tackle.call("close"), new Promise((resolve) => setTimeout(resolve, 3_000))]).catch(() => undefined);
    await tackle.stop(500);
    await fakes.call("close").catch(() => undefined);
    await fakes.stop(5_000);
    await rm(home, { recursive: true, force: true });
  };
  try {
    const seeded = await fakes.call<Seeded>("seed", { owners: options.owners, issuesPerOwner: options.issuesPerOwner } satisfies SeedRequest);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ...seeded.env,
      TACKLE_HOME: home,
      LOG_LEVEL: "silent",
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    };
    const webhookUrl = await tackle.call<string>("start", { env, withWorker: options.withWorker } satisfies StartRequest);
    return {
      issues: seeded.issues,
      async deliver(intervalMs, waitMs) {
        await tackle.call("watch-loop");
        const sent = await fakes.call<AckSample[]>("deliver", { webhookUrl, intervalMs, waitMs } satisfies DeliverRequest);
        // IPC carries JSON: NaN arrives as null.
        const samples = sent.map(
          (sample) =>
            Object.fromEntries(Object.entries(sample).map(([key, value]) => [key, typeof value === "number" ? value : Number.NaN])) as unknown as AckSample,
        );
        return { samples, loop: await tackle.call<LoopDelay>("loop") };
      },
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Seconds with three decimals (one from 10 s); "—" for what did not happen. */
export const seconds = (value: number): string => (Number.isFinite(value) ? `${(value / 1000).toFixed(Math.abs(value) < 10_000 ? 3 : 1)} s` : "—");

/** Resolves once `condition` holds, polling every `everyMs`; rejects after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
