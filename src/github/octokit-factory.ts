import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/rest";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Probot, ProbotOctokit } from "probot";
import type { Logger } from "../logging/logger.js";
import { createGitHubClient, type GitHubClient, type RestClient } from "./github-client.js";

export interface OctokitSettings {
  /**
   * Octokit's throttling plugin (spaces writes ~1 s apart per installation, honours retry-after).
   * Tests turn it off except the rate-limit ones.
   * @defaultValue true
   */
  throttle?: boolean;
  /** Retries of 5xx answers by the retry plugin. @defaultValue true */
  retry?: boolean;
}

/**
 * Probot's Octokit with our throttling choice. Probot's `auth(installationId)` keys the throttling
 * limiter by installation id, so one busy installation does not slow the others.
 */
export function probotOctokitClass(settings: OctokitSettings = {}): typeof ProbotOctokit {
  const throttle = settings.throttle ?? true;
  const retryOn = settings.retry ?? true;
  if (throttle && retryOn) return ProbotOctokit;
  return ProbotOctokit.defaults((options: Record<string, unknown>) => ({
    ...options,
    throttle: { ...(options.throttle as object | undefined), enabled: throttle },
    retry: { enabled: retryOn },
  })) as typeof ProbotOctokit;
}

export interface AppCredentials {
  appId: string;
  privateKey: string;
  webhookSecret: string;
  /** REST base, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  apiUrl: string;
}

/** Probot built with explicit options: never let it read REDIS_URL (it would fetch ioredis at run time). */
export function createProbot(credentials: AppCredentials, logger: Logger, settings: OctokitSettings = {}): Probot {
  return new Probot({
    appId: credentials.appId,
    privateKey: credentials.privateKey,
    secret: credentials.webhookSecret,
    baseUrl: credentials.apiUrl,
    log: logger.child({ name: "probot" }),
    Octokit: probotOctokitClass(settings),
  });
}

/**
 * GitHub clients per installation. REST calls go through Probot's installation Octokit (throttling
 * keyed by installation). The host's git token comes from an app auth of our own over that Octokit's
 * `request`: Probot's `octokit.auth({ type: "installation" })` sends the token request without the
 * configured base URL (to api.github.com even on GHE) whenever its cache is cold, as in a worker.
 * The auth caches the token and mints a new one shortly before it expires, so long jobs keep pushing.
 */
export function installationClients(
  probot: Probot,
  credentials: Pick<AppCredentials, "appId" | "privateKey">,
): (installationId: number) => Promise<GitHubClient> {
  const auths = new Map<number, ReturnType<typeof createAppAuth>>();
  return async (installationId) => {
    const octokit = (await probot.auth(installationId)) as unknown as RestClient;
    let auth = auths.get(installationId);
    if (!auth) {
      auth = createAppAuth({
        appId: credentials.appId,
        privateKey: credentials.privateKey,
        installationId,
        request: octokit.request,
      });
      auths.set(installationId, auth);
    }
    const tokenAuth = auth;
    return createGitHubClient(octokit, {
      gitToken: async () => (await tokenAuth({ type: "installation" })).token,
    });
  };
}

const RestWithPlugins = Octokit.plugin(throttling, retry);

/** A client over a plain token (the Action's GITHUB_TOKEN or an installation token handed in). */
export function tokenClient(options: { token: string; apiUrl: string; logger: Logger } & OctokitSettings): GitHubClient {
  const octokit = new RestWithPlugins({
    auth: options.token,
    baseUrl: options.apiUrl,
    userAgent: "tackle",
    // Octokit's request log is the only writer at info and error here: one line per request, a failed
    // one at error even when the 404 is the answer ("no .github/tackle.yml"). The caller decides what a
    // failure means and reports it, so request lines go to debug, as Probot's client writes them.
    log: {
      debug: () => {},
      info: (message: string) => options.logger.debug(message),
      warn: (message: string) => options.logger.warn(message),
      error: (message: string) => options.logger.debug(message),
    },
    throttle: {
      enabled: options.throttle ?? true,
      onRateLimit: (retryAfter: number, request: { method: string; url: string }) => {
        options.logger.warn({ retryAfter, url: request.url }, "GitHub rate limit; retrying");
        return true;
      },
      onSecondaryRateLimit: (retryAfter: number, request: { method: string; url: string }) => {
        options.logger.warn({ retryAfter, url: request.url }, "GitHub secondary rate limit; retrying");
        return true;
      },
    },
    retry: { enabled: options.retry ?? true },
  });
  return createGitHubClient(octokit as unknown as RestClient, { gitToken: async () => options.token });
}
