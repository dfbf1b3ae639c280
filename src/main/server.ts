import http from "node:http";
import { createNodeMiddleware, type Probot } from "probot";
import { createAnthropicClient } from "../agent/index.js";
import { loadEnv, type TackleEnv } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { createProbot, installationClient, type OctokitSettings } from "../github/index.js";
import { createEmbeddedQueue } from "../jobs/embedded-queue.js";
import type { Queue } from "../jobs/queue.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { createWebhookApp, type BotIdentity } from "./webhook-app.js";
import { processJob, type ProcessJobDeps } from "../worker/process-job.js";
import { handleHealth } from "../web/health.js";
import { createRepoCache, detectSandbox } from "../workspace/index.js";

export const WEBHOOK_PATH = "/api/github/webhooks";

export interface TackleApp {
  /** The request handler: health endpoints, then Probot's webhook middleware. */
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  queue: Queue;
  identity: BotIdentity;
  close(): Promise<void>;
}

/** Reads the App (`GET /app`) to learn its slug: the bot user is `<slug>[bot]`. */
async function readIdentity(probot: Probot, env: TackleEnv): Promise<BotIdentity> {
  const octokit = (await probot.auth()) as unknown as { request: (route: string) => Promise<{ data: { slug?: string } }> };
  const { data } = await octokit.request("GET /app");
  const slug = data.slug;
  if (!slug) throw new TackleError("auth_failed", "GET /app returned no slug; check APP_ID and the private key");
  return { botLogin: `${slug}[bot]`, botName: env.botName ?? slug };
}

/**
 * Builds the whole App over an environment: Probot, queue, worker deps. Tests mount `handler` on their
 * own server (Probot's Server treats port 0 as 3000); `tackle server` listens on PORT.
 */
export async function createTackleApp(
  processEnv: NodeJS.ProcessEnv,
  options: { withWorker: boolean; logger?: Logger; octokit?: OctokitSettings },
): Promise<TackleApp> {
  const env = loadEnv(processEnv, { mode: "server" });
  const logger = options.logger ?? createLogger(processEnv);
  const sandbox = await detectSandbox();
  if (!sandbox.available && env.sandbox !== "off") {
    throw new TackleError(
      "sandbox_unavailable",
      `bubblewrap is not available (${sandbox.detail}); install it, or set TACKLE_SANDBOX=off to run jobs without a sandbox`,
    );
  }
  if (!sandbox.available) logger.warn("TACKLE_SANDBOX=off: jobs run WITHOUT a sandbox");
  const app = env.app!;
  const probot = createProbot(
    { appId: String(app.appId), privateKey: app.privateKey, webhookSecret: app.webhookSecret ?? "", apiUrl: env.githubApiUrl },
    logger,
    options.octokit ?? {},
  );
  const identity = await readIdentity(probot, env);
  logger.info({ bot: identity.botLogin }, "GitHub App identity");

  const repoCache = createRepoCache({ home: env.home, logger });
  await repoCache.pruneStale();
  const secrets = [env.anthropicApiKey, app.webhookSecret].filter((s): s is string => Boolean(s));
  const deps: ProcessJobDeps = {
    github: async (data) => {
      if (data.installationId === undefined) throw new TackleError("payload_invalid", "the job has no installation id");
      return installationClient(probot, data.installationId);
    },
    model: () =>
      createAnthropicClient({
        ...(env.anthropicApiKey ? { apiKey: env.anthropicApiKey } : {}),
        ...(env.anthropicBaseUrl ? { baseURL: env.anthropicBaseUrl } : {}),
      }),
    workspaces: repoCache,
    clock: Date.now,
    logger,
    settings: {
      home: env.home,
      defaultModel: env.model,
      allowedModels: env.allowedModels,
      sandbox: sandbox.available ? "bwrap" : "off",
      gitUrl: env.gitUrl,
      gitHost: new URL(env.githubServerUrl).host,
      secrets,
    },
  };
  const queue = createEmbeddedQueue({ logger });
  if (options.withWorker || !env.redisUrl) {
    await queue.start(async (data, signal) => {
      await processJob(data, deps, signal);
    });
  }
  const webhookApp = createWebhookApp({
    identity,
    queue,
    github: (installationId) => installationClient(probot, installationId),
    logger,
  });
  const middleware = await createNodeMiddleware(webhookApp, { probot, webhooksPath: WEBHOOK_PATH });
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (handleHealth(req, res, { ready: async () => true })) return;
    void middleware(req, res, () => {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }));
    });
  };
  return {
    handler,
    queue,
    identity,
    close: () => queue.close(),
  };
}

/** `tackle server`: listen on PORT until SIGTERM/SIGINT, then drain. */
export async function startServer(processEnv: NodeJS.ProcessEnv, options: { withWorker: boolean }): Promise<void> {
  const logger = createLogger(processEnv);
  const app = await createTackleApp(processEnv, { withWorker: options.withWorker, logger });
  const port = Number(processEnv.PORT ?? 3000);
  const server = http.createServer(app.handler);
  await new Promise<void>((resolve) => server.listen(port, resolve));
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  logger.info({ port: actual, webhookPath: WEBHOOK_PATH }, "tackle server listening");
  console.log(`tackle server listening on port ${actual} (webhooks at ${WEBHOOK_PATH})`);
  const shutdown = async (): Promise<void> => {
    server.close();
    await app.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown());
  process.once("SIGINT", () => void shutdown());
}
