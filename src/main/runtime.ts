import type { Probot } from "probot";
import { loadEnv, type TackleEnv } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { createProbot, installationClients, type GitHubClient, type OctokitSettings } from "../github/index.js";
import { createAckClaims, createApprovals, createDailyBudget, createJobStore, createMemoryStore } from "../jobs/index.js";
import { createWebFetchCache } from "../net/index.js";
import { environmentSecrets } from "../logging/environment-secrets.js";
import type { Logger } from "../logging/logger.js";
import type { ProcessJobDeps } from "../worker/index.js";
import { createRepoCache, currentIdentity, detectSandbox, rootGroupProblem, rootGroupRefusal } from "../workspace/index.js";
import type { BotIdentity } from "./webhook-app.js";
import { modelClientFor } from "./model-client-for.js";

export interface JobRuntime {
  env: TackleEnv<"server" | "worker">;
  probot: Probot;
  /** The App's bot user and command name, from `GET /app` (and TACKLE_BOT_NAME). */
  identity: BotIdentity;
  /** The GitHub client of one installation (shared token cache). */
  forInstallation: (installationId: number) => Promise<GitHubClient>;
  deps: ProcessJobDeps;
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
 * What both `tackle server` and `tackle worker` need to run jobs: the App's Probot (for installation
 * tokens), the sandbox check, the repo cache, the model client and the approvals store.
 */
export async function createJobRuntime(
  processEnv: NodeJS.ProcessEnv,
  options: {
    mode: "server" | "worker";
    logger: Logger;
    octokit?: OctokitSettings;
    /** Whether this process runs jobs; a server that only enqueues needs no sandbox. @defaultValue true */
    runsJobs?: boolean;
    /** False for `tackle receive`, which verifies no signature and so needs no WEBHOOK_SECRET. @defaultValue true */
    verifiesWebhooks?: boolean;
  },
): Promise<JobRuntime> {
  const verifiesWebhooks = options.verifiesWebhooks ?? true;
  const env = loadEnv(processEnv, { mode: options.mode, verifiesWebhooks }) as TackleEnv<"server" | "worker">;
  const { logger } = options;
  const sandbox = await detectSandbox();
  const runsJobs = options.runsJobs ?? true;
  if (runsJobs && !sandbox.available && env.sandbox !== "off") {
    throw new TackleError(
      "sandbox_unavailable",
      `bubblewrap is not available (${sandbox.detail}); install it, or set TACKLE_SANDBOX=off to run jobs without a sandbox`,
    );
  }
  if (runsJobs && !sandbox.available) logger.warn("TACKLE_SANDBOX=off and bubblewrap is missing: jobs run WITHOUT a sandbox");
  const rootGroup = runsJobs ? rootGroupRefusal(currentIdentity(), sandbox.available) : null;
  if (rootGroup !== null) throw new TackleError("sandbox_unavailable", rootGroup);
  const keptGroup = runsJobs ? rootGroupProblem() : null;
  if (keptGroup !== null) logger.warn(`${keptGroup}, over what bubblewrap binds read-only; give Tackle a group of its own`);
  const app = env.app;
  const probot = createProbot(
    {
      appId: String(app.appId),
      privateKey: app.privateKey,
      webhookSecret: app.webhookSecret ?? "",
      apiUrl: env.githubApiUrl,
    },
    logger,
    options.octokit ?? {},
  );
  const identity = await readIdentity(probot, env);
  const forInstallation = installationClients(probot, { appId: String(app.appId), privateKey: app.privateKey });
  const repoCache = createRepoCache({ home: env.home, logger });
  await repoCache.pruneStale();
  // The one list (environmentSecrets): model keys and their credential files, the App's key and secret, the
  // dashboard and metrics tokens, every TACKLE_SECRET_*, and whatever else the operator named like a credential.
  const secrets = [...environmentSecrets(processEnv), app.privateKey];
  const deps: ProcessJobDeps = {
    github: async (data) => {
      if (data.installationId === undefined) throw new TackleError("payload_invalid", "the job has no installation id");
      return forInstallation(data.installationId);
    },
    model: () => modelClientFor(env),
    workspaces: repoCache,
    clock: Date.now,
    logger,
    // One store per process: the server's webhook handler answers what its in-process jobs ask;
    // with Redis, what jobs in any worker ask.
    approvals: createApprovals({ redisUrl: env.redisUrl, logger }),
    // Shared with the webhook handler in this process and, through Redis, with every worker.
    claims: createAckClaims({ redisUrl: env.redisUrl, logger }),
    // With Redis, every worker reads and writes one memory per repository.
    memory: { store: createMemoryStore({ redisUrl: env.redisUrl, home: env.home, logger }), host: new URL(env.githubServerUrl).host },
    web: { allow: env.fetchAllow, cache: createWebFetchCache() },
    // With Redis, every worker reserves from the same daily counts; without it, this process runs every job.
    budget: createDailyBudget({ redisUrl: env.redisUrl, logger }),
    // With Redis, the server's dashboard reads what every worker records.
    jobStore: createJobStore({ redisUrl: env.redisUrl, home: env.home, logger }),
    settings: {
      commandName: identity.botName,
      home: env.home,
      defaultModel: env.model,
      allowedModels: env.allowedModels,
      sandbox: sandbox.available ? "bwrap" : "off",
      gitUrl: env.gitUrl,
      // The cache key segment: the host, with a port written as host_port.
      gitHost: new URL(env.githubServerUrl).host.replace(":", "_"),
      secrets,
      operatorSecrets: env.operatorSecrets,
      dailyBudgetUsd: env.dailyBudgetUsd,
      dashboardUrl: env.publicUrl === null ? null : `${env.publicUrl}/dashboard`,
    },
  };
  return { env, probot, forInstallation, deps, identity };
}
