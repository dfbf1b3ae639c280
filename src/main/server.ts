import http from "node:http";
import { createNodeMiddleware } from "probot";
import { DEFAULT_WEBHOOK_PATH } from "../config/index.js";
import type { OctokitSettings } from "../github/index.js";
import { createEmbeddedAckClaims, createQueue, type JobData, type Queue } from "../jobs/index.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { createRedactor } from "../util/redact.js";
import { bufferWebhookBody } from "../web/buffer-webhook-body.js";
import { createMetrics } from "../web/create-metrics.js";
import type { JobStore } from "../jobs/job-store.js";
import { triggerFields } from "../jobs/job-data.js";
import { createDashboard, type Dashboard } from "../web/dashboard/create-dashboard.js";
import { createQueueBoard } from "../web/dashboard/create-queue-board.js";
import { handleHealth } from "../web/health.js";
import { serveMetrics } from "../web/serve-metrics.js";
import { processJob, reportDeadJob, type JobOutcome } from "../worker/index.js";
import { createJobRuntime } from "./runtime.js";
import { startWebhookProxy, type WebhookProxy } from "./start-webhook-proxy.js";
import { createWebhookApp, type BotIdentity } from "./webhook-app.js";

/** The default webhook path (WEBHOOK_PATH changes it). */
export const WEBHOOK_PATH = DEFAULT_WEBHOOK_PATH;

/** How long a client has to send a request's headers (Node's default: 60 s). GitHub sends them at once. */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * How long a client has to send a whole request, body included (Node's default: 300 s, which let an
 * unsigned body dripped a byte at a time hold a connection for five minutes). GitHub gives up on a
 * delivery after 10 s. This bounds only what the client sends: a response, such as a dashboard
 * event stream, lasts as long as it needs.
 */
const REQUEST_TIMEOUT_MS = 30_000;

/** How often Node looks for requests past those timeouts (its default, 30 s, could double them). */
const TIMEOUT_CHECK_INTERVAL_MS = 5_000;

/** One delivery as GitHub sends it: X-GitHub-Event, X-GitHub-Delivery and the parsed body. */
export interface Delivery {
  id: string;
  name: string;
  payload: unknown;
}

/** How one run of a job in this process ended: its outcome, or what it threw (the queue may retry it). */
export type JobEnd = { outcome: JobOutcome } | { error: unknown };

export interface TackleApp {
  /**
   * The request handler: health endpoints, metrics, the dashboard, then Probot's webhook middleware
   * with the body read first, up to GitHub's payload cap. Serve it with `createTackleServer`.
   */
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  /** Runs one delivery through the webhook side without a signature check (`tackle receive`). */
  receive(delivery: Delivery): Promise<void>;
  queue: Queue;
  identity: BotIdentity;
  /** PORT (default 3000; 0 picks a free port, printed at start). */
  port: number;
  /** HOST; null listens on every interface. */
  host: string | null;
  /** WEBHOOK_PATH (default /api/github/webhooks). */
  webhookPath: string;
  /** WEBHOOK_PROXY_URL: the channel `tackle server` forwards to its webhook path. */
  webhookProxyUrl: string | null;
  close(drainMs?: number): Promise<void>;
}

/**
 * Builds the whole App over an environment: Probot, queue, worker deps. Tests serve `handler` with
 * `createTackleServer` on a port of their own (Probot's Server treats port 0 as 3000); `tackle server`
 * listens on PORT.
 */
export async function createTackleApp(
  processEnv: NodeJS.ProcessEnv,
  options: {
    withWorker: boolean;
    logger?: Logger;
    octokit?: OctokitSettings;
    queueOptions?: { lockDurationMs?: number; stalledIntervalMs?: number; concurrency?: number };
    /** Tests: how long policy questions wait. @defaultValue each repo's approval_timeout_minutes */
    approvalTimeoutMs?: number;
    /** False when deliveries only come through `receive` (no WEBHOOK_SECRET needed). @defaultValue true */
    verifiesWebhooks?: boolean;
    /** Called each time a job run in this process ends (`tackle receive` waits for its job's). */
    onJobEnd?: (data: JobData, end: JobEnd) => void;
    /** Node's process metrics on `/metrics` beside Tackle's own. @defaultValue false */
    processMetrics?: boolean;
  },
): Promise<TackleApp> {
  const logger = options.logger ?? createLogger(processEnv);
  const runsJobs = options.withWorker || !processEnv.REDIS_URL;
  const runtime = await createJobRuntime(processEnv, {
    mode: "server",
    logger,
    runsJobs,
    ...(options.octokit ? { octokit: options.octokit } : {}),
    ...(options.verifiesWebhooks === undefined ? {} : { verifiesWebhooks: options.verifiesWebhooks }),
  });
  const { env, probot, forInstallation, deps, identity } = runtime;
  if (options.approvalTimeoutMs !== undefined) deps.settings.approvalTimeoutMs = options.approvalTimeoutMs;
  const metrics = createMetrics({ processMetrics: options.processMetrics ?? false });
  deps.metrics = metrics.jobs;
  logger.info({ bot: identity.botLogin }, "GitHub App identity");

  const consume = runsJobs;
  const queue = createQueue({
    redisUrl: env.redisUrl,
    consume,
    logger,
    onDead: (data, reason) => reportDeadJob(data, deps, reason),
    ...(options.queueOptions ?? {}),
  });
  metrics.watchQueue(queue);
  if (consume) {
    const onJobEnd = options.onJobEnd;
    const run = (data: JobData, signal: AbortSignal, attempt?: { attempt: number; maxAttempts: number }) =>
      metrics.observeJob(data, () => processJob(data, deps, signal, attempt));
    await queue.start(async (data, signal, attempt) => {
      if (!onJobEnd) {
        await run(data, signal, attempt);
        return;
      }
      try {
        onJobEnd(data, { outcome: await run(data, signal, attempt) });
      } catch (error) {
        onJobEnd(data, { error });
        throw error;
      }
    });
  }
  const webhookApp = createWebhookApp({
    identity,
    queue: deps.jobStore === undefined ? queue : recordingEnqueues(queue, deps.jobStore, logger),
    github: forInstallation,
    logger,
    claims: deps.claims ?? createEmbeddedAckClaims(),
    ...(deps.approvals ? { approvals: deps.approvals } : {}),
    redact: createRedactor(deps.settings.secrets),
    metrics,
  });
  const middleware = await createNodeMiddleware(webhookApp, { probot, webhooksPath: env.webhookPath });
  const dashboard = openDashboard(env, deps.jobStore, logger);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (handleHealth(req, res, { ready: () => queue.ready() })) return;
    if (serveMetrics(req, res, { metrics, token: env.metricsToken, logger })) return;
    if (dashboard?.matches(req)) {
      dashboard.handle(req, res);
      return;
    }
    void bufferWebhookBody(req, res, { logger }).then((read) => {
      if (!read) return;
      return middleware(req, res, () => {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }));
      });
    });
  };
  const close = async (drainMs?: number): Promise<void> => {
    await queue.close(drainMs);
    await deps.approvals?.close();
    await deps.claims?.close();
    await deps.memory?.store.close();
    await deps.budget?.close();
    await dashboard?.close();
    await deps.jobStore?.close();
  };
  return {
    handler,
    receive: (delivery) => probot.receive(delivery as Parameters<typeof probot.receive>[0]),
    queue,
    identity,
    port: env.port,
    host: env.host,
    webhookPath: env.webhookPath,
    webhookProxyUrl: env.webhookProxyUrl,
    close,
  };
}

/**
 * `tackle server`: listen on HOST:PORT until SIGTERM/SIGINT, then drain. With WEBHOOK_PROXY_URL, also
 * subscribe to that channel and forward its deliveries to the webhook path (Probot's smee convention).
 */
export async function startServer(processEnv: NodeJS.ProcessEnv, options: { withWorker: boolean }): Promise<void> {
  const logger = createLogger(processEnv);
  const app = await createTackleApp(processEnv, { withWorker: options.withWorker, logger, processMetrics: true });
  const server = createTackleServer(app);
  let proxy: WebhookProxy | undefined;
  try {
    await listen(server, app.port, app.host);
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : app.port;
    if (app.webhookProxyUrl) {
      proxy = await startWebhookProxy({ source: app.webhookProxyUrl, target: localUrl(app.host, port, app.webhookPath), logger });
    }
    const where = app.host === null ? "" : ` on ${app.host}`;
    const via = app.webhookProxyUrl ? `, forwarded from ${app.webhookProxyUrl}` : "";
    logger.info({ port, host: app.host, webhookPath: app.webhookPath, queue: app.queue.kind }, "tackle server listening");
    console.log(`tackle server listening on port ${port}${where} (webhooks at ${app.webhookPath}${via}, queue: ${app.queue.kind})`);
  } catch (error) {
    if (server.listening) server.close();
    await app.close(0);
    throw error;
  }
  const shutdown = async (): Promise<void> => {
    proxy?.close();
    server.close();
    await app.close(30_000);
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown());
  process.once("SIGINT", () => void shutdown());
}

/** The HTTP server for a TackleApp, with the time limits above on what each client sends. */
export function createTackleServer(app: Pick<TackleApp, "handler">): http.Server {
  return http.createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    app.handler,
  );
}

function listen(server: http.Server, port: number, host: string | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const where = host === null ? `port ${port}` : `${host}:${port}`;
      const why =
        error.code === "EADDRINUSE"
          ? "it is already in use (set PORT to another)"
          : error.code === "EADDRNOTAVAIL"
            ? "HOST is not an address of this machine"
            : error.message;
      reject(new Error(`cannot listen on ${where}: ${why}`, { cause: error }));
    });
    server.listen(port, host ?? undefined, () => resolve());
  });
}

/** Where this process reaches its own webhook path: loopback when it listens on every interface. */
function localUrl(host: string | null, port: number, path: string): string {
  const wildcard = host === null || host === "0.0.0.0" || host === "::";
  const name = wildcard ? (host === "::" ? "::1" : "127.0.0.1") : host;
  return `http://${name.includes(":") ? `[${name}]` : name}:${port}${path}`;
}

/** The dashboard at /dashboard when TACKLE_DASHBOARD_TOKEN is set (with the queue's view when Redis is used); else none. */
function openDashboard(
  env: { dashboardToken: string | null; publicUrl: string | null; redisUrl: string | null },
  store: JobStore | undefined,
  logger: Logger,
): Dashboard | undefined {
  if (env.dashboardToken === null || store === undefined) return undefined;
  return createDashboard({
    token: env.dashboardToken,
    publicUrl: env.publicUrl,
    store,
    logger,
    ...(env.redisUrl === null ? {} : { queueBoard: createQueueBoard({ redisUrl: env.redisUrl, logger }) }),
  });
}

/** The queue, recording each job it takes as queued in the job store (best effort: the webhook never waits on it). */
function recordingEnqueues(queue: Queue, store: JobStore, logger: Logger): Queue {
  return {
    kind: queue.kind,
    async enqueue(data) {
      const outcome = await queue.enqueue(data);
      if (outcome.status === "queued" && outcome.jobId === data.jobId) {
        // No status: a worker that already started the job keeps its "running".
        store.record(triggerFields(data)).catch((error: unknown) => logger.warn({ err: error }, "could not record the queued job for the dashboard"));
      }
      return outcome;
    },
    start: (processor) => queue.start(processor),
    cancel: (repo, number) => queue.cancel(repo, number),
    counts: () => queue.counts(),
    ready: () => queue.ready(),
    idle: () => queue.idle(),
    close: (drainMs) => queue.close(drainMs),
  };
}
