import http from "node:http";
import { createNodeMiddleware } from "probot";
import type { OctokitSettings } from "../github/index.js";
import { createEmbeddedAckClaims, createQueue, type Queue } from "../jobs/index.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { createRedactor } from "../util/redact.js";
import { handleHealth } from "../web/health.js";
import { processJob, reportDeadJob } from "../worker/process-job.js";
import { createJobRuntime } from "./runtime.js";
import { createWebhookApp, type BotIdentity } from "./webhook-app.js";

export const WEBHOOK_PATH = "/api/github/webhooks";

export interface TackleApp {
  /** The request handler: health endpoints, then Probot's webhook middleware. */
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  queue: Queue;
  identity: BotIdentity;
  /** PORT (default 3000; 0 picks a free port, printed at start). */
  port: number;
  close(drainMs?: number): Promise<void>;
}


/**
 * Builds the whole App over an environment: Probot, queue, worker deps. Tests mount `handler` on their
 * own server (Probot's Server treats port 0 as 3000); `tackle server` listens on PORT.
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
  },
): Promise<TackleApp> {
  const logger = options.logger ?? createLogger(processEnv);
  const runsJobs = options.withWorker || !processEnv.REDIS_URL;
  const runtime = await createJobRuntime(processEnv, {
    mode: "server",
    logger,
    runsJobs,
    ...(options.octokit ? { octokit: options.octokit } : {}),
  });
  const { env, probot, forInstallation, deps, identity } = runtime;
  if (options.approvalTimeoutMs !== undefined) deps.settings.approvalTimeoutMs = options.approvalTimeoutMs;
  logger.info({ bot: identity.botLogin }, "GitHub App identity");

  const consume = runsJobs;
  const queue = createQueue({
    redisUrl: env.redisUrl,
    consume,
    logger,
    onDead: (data, reason) => reportDeadJob(data, deps, reason),
    ...(options.queueOptions ?? {}),
  });
  if (consume) {
    await queue.start(async (data, signal, attempt) => {
      await processJob(data, deps, signal, attempt);
    });
  }
  const webhookApp = createWebhookApp({
    identity,
    queue,
    github: forInstallation,
    logger,
    claims: deps.claims ?? createEmbeddedAckClaims(),
    ...(deps.approvals ? { approvals: deps.approvals } : {}),
    redact: createRedactor(deps.settings.secrets),
  });
  const middleware = await createNodeMiddleware(webhookApp, { probot, webhooksPath: WEBHOOK_PATH });
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (handleHealth(req, res, { ready: () => queue.ready() })) return;
    void middleware(req, res, () => {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }));
    });
  };
  const close = async (drainMs?: number): Promise<void> => {
    await queue.close(drainMs);
    await deps.approvals?.close();
    await deps.claims?.close();
  };
  return { handler, queue, identity, port: env.port, close };
}

/** `tackle server`: listen on PORT until SIGTERM/SIGINT, then drain. */
export async function startServer(processEnv: NodeJS.ProcessEnv, options: { withWorker: boolean }): Promise<void> {
  const logger = createLogger(processEnv);
  const app = await createTackleApp(processEnv, { withWorker: options.withWorker, logger });
  const port = app.port;
  const server = http.createServer(app.handler);
  await new Promise<void>((resolve) => server.listen(port, resolve));
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  logger.info({ port: actual, webhookPath: WEBHOOK_PATH, queue: app.queue.kind }, "tackle server listening");
  console.log(`tackle server listening on port ${actual} (webhooks at ${WEBHOOK_PATH}, queue: ${app.queue.kind})`);
  const shutdown = async (): Promise<void> => {
    server.close();
    await app.close(30_000);
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown());
  process.once("SIGINT", () => void shutdown());
}
