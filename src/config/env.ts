import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { TackleError } from "../errors/index.js";
import { isSecretName } from "../logging/environment-secrets.js";
import { maskUrl } from "../logging/mask-url.js";
import { parseFetchAllow } from "./parse-fetch-allow.js";
import { parseModelPrices, type ConfiguredPrice } from "./parse-model-prices.js";
import { parseOperatorSecrets, type OperatorSecrets } from "./parse-operator-secrets.js";
import { describeValue } from "./problem-text.js";

/**
 * Which entry point loads the environment; each needs different variables.
 * - `server`: APP_ID, a private key and WEBHOOK_SECRET.
 * - `worker`: APP_ID, a private key and REDIS_URL (it never receives webhooks, so no secret).
 * - `local`: nothing required.
 * - `action`: a GitHub token (`INPUT_GITHUB_TOKEN` or `GITHUB_TOKEN`); GitHub's URLs from the runner.
 * - `setup`: nothing required; the App is never read (`tackle setup` registers one).
 */
export type EnvMode = "server" | "worker" | "local" | "action" | "setup";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/** TACKLE_PROVIDER: who serves the model. */
export const MODEL_PROVIDERS = ["anthropic", "bedrock", "vertex", "openai"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface AppCredentials {
  appId: number;
  /** PEM, with real line breaks. */
  privateKey: string;
  /** Null outside server mode when unset. */
  webhookSecret: string | null;
}

/** Claude on Amazon Bedrock, from the AWS SDK's own variables. */
export interface BedrockSettings {
  /** AWS_REGION, else AWS_DEFAULT_REGION; null only where no job runs (checked when one does). */
  region: string | null;
  /** ANTHROPIC_BEDROCK_BASE_URL (the SDK's own): a VPC endpoint or a proxy. @defaultValue null: the region's endpoint */
  baseUrl: string | null;
  /**
   * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN when set).
   * @defaultValue null: the AWS SDK's credential chain (AWS_PROFILE, SSO, web identity, ECS and EC2 roles)
   */
  keys: { accessKeyId: string; secretAccessKey: string; sessionToken: string | null } | null;
  /** AWS_BEARER_TOKEN_BEDROCK: a Bedrock API key, sent instead of signing with AWS credentials. */
  apiKey: string | null;
}

/** Claude on Vertex AI, from the Vertex SDK's and Google's own variables. */
export interface VertexSettings {
  /** CLOUD_ML_REGION (`global`, `us-east5`, …); null only where no job runs (checked when one does). */
  region: string | null;
  /** ANTHROPIC_VERTEX_PROJECT_ID. @defaultValue null: the credentials' own project */
  projectId: string | null;
  /** ANTHROPIC_VERTEX_BASE_URL (the SDK's own). @defaultValue null: the region's endpoint */
  baseUrl: string | null;
  /** GOOGLE_APPLICATION_CREDENTIALS. @defaultValue null: Application Default Credentials (gcloud's file, the metadata server) */
  credentialsFile: string | null;
  /** gcloud's Application Default Credentials file, which the Google library reads when `credentialsFile` is null (`$CLOUDSDK_CONFIG/application_default_credentials.json`, else under `~/.config/gcloud`). */
  defaultCredentialsFile: string;
}

export interface TackleEnv<M extends EnvMode = EnvMode> {
  mode: M;
  /** The GitHub App; always set for server and worker, set elsewhere only when APP_ID is. */
  app: M extends "server" | "worker" ? AppCredentials : AppCredentials | null;
  /** GitHub Enterprise Server, from GHE_HOST and GHE_PROTOCOL; null for github.com. */
  ghe: { host: string; protocol: "http" | "https" } | null;
  /** `https://api.github.com`, or `{proto}://{host}/api/v3`; the runner's GITHUB_API_URL in action mode. */
  githubApiUrl: string;
  /** `https://github.com`, or `{proto}://{host}`; the runner's GITHUB_SERVER_URL in action mode. */
  githubServerUrl: string;
  /** Clone URL of a repository, without credentials. */
  gitUrl(owner: string, repo: string): string;
  /** @defaultValue 3000 */
  port: number;
  /** HOST: the address the server listens on. @defaultValue null: every interface */
  host: string | null;
  /** WEBHOOK_PATH, Probot's name. @defaultValue "/api/github/webhooks" */
  webhookPath: string;
  /** WEBHOOK_PROXY_URL: a smee.io-style channel the server subscribes to and forwards to its webhook path. */
  webhookProxyUrl: string | null;
  /** TACKLE_PUBLIC_URL, without a trailing slash: where GitHub and people reach the server. */
  publicUrl: string | null;
  /** ANTHROPIC_API_KEY (in action mode also the `anthropic_api_key` input). */
  anthropicApiKey: string | null;
  anthropicBaseUrl: string | null;
  /** TACKLE_PROVIDER. @defaultValue "anthropic" */
  provider: ModelProvider;
  /** OPENAI_BASE_URL, without a trailing slash: the chat-completions server's base, `/v1` included (`http://vllm:8000/v1`). */
  openaiBaseUrl: string | null;
  /** OPENAI_API_KEY, sent as a bearer token; many local servers need none. */
  openaiApiKey: string | null;
  /** TACKLE_MODEL_PRICES: the operator's prices, before the built-in table. @defaultValue [] */
  modelPrices: ConfiguredPrice[];
  /** Set when `provider` is `bedrock`. */
  bedrock: BedrockSettings | null;
  /** Set when `provider` is `vertex`. */
  vertex: VertexSettings | null;
  /** TACKLE_MODEL, in the provider's own naming. @defaultValue the provider's in DEFAULT_MODELS (required with TACKLE_PROVIDER=openai) */
  model: string;
  /** TACKLE_ALLOWED_MODELS; always includes `model`. @defaultValue [model] */
  allowedModels: string[];
  redisUrl: string | null;
  /** TACKLE_HOME, absolute. @defaultValue ~/.tackle */
  home: string;
  /** `off` only when TACKLE_SANDBOX=off; otherwise jobs require bubblewrap. */
  sandbox: "required" | "off";
  /** TACKLE_BOT_NAME; null means "the App's slug, or `tackle` without an App". */
  botName: string | null;
  /** @defaultValue "info" */
  logLevel: LogLevel;
  /** Action mode: `INPUT_GITHUB_TOKEN` or `GITHUB_TOKEN`; null elsewhere. */
  githubToken: string | null;
  /**
   * TACKLE_FETCH_ALLOW: WebFetch's host patterns (`host`, `*.host`, `*`, `ip:port`), canonical. `[]`
   * when set and empty: WebFetch is off.
   * @defaultValue null: unset, any public host (as `*`)
   */
  fetchAllow: string[] | null;
  /**
   * TACKLE_DAILY_BUDGET_USD: what each installation may spend on models per UTC day, over all its
   * repositories (a repository's `daily_budget_usd` may only lower it for itself).
   * @defaultValue null: no cap
   */
  dailyBudgetUsd: number | null;
  /** TACKLE_METRICS_TOKEN: when set, `GET /metrics` needs it as a bearer token. @defaultValue null: `/metrics` is open */
  metricsToken: string | null;
  /** TACKLE_DASHBOARD_TOKEN: the dashboard at `/dashboard` is on when set. @defaultValue null: off */
  dashboardToken: string | null;
  /**
   * `TACKLE_SECRET_<NAME>` with their `_REPOS` and `_HOSTS` scopes: what a repository's MCP values may
   * name (through resolveScopedSecrets only). @defaultValue none
   */
  operatorSecrets: OperatorSecrets;
}

export interface LoadEnvOptions<M extends EnvMode> {
  /** @defaultValue "server" */
  mode?: M;
  /**
   * Whether this process runs jobs, which needs the chosen provider's settings (missingModelSettings).
   * @defaultValue true for worker and action; for server, true without REDIS_URL (jobs run
   * in-process); false for local, where a replayed run needs no key
   */
  runsJobs?: boolean;
  /** Reads PRIVATE_KEY_PATH. @defaultValue fs.readFileSync as UTF-8 */
  readFile?: (path: string) => string;
  /** Base of `~` in TACKLE_HOME. @defaultValue os.homedir() */
  homeDir?: string;
  /**
   * Whether this process verifies webhook signatures, which needs WEBHOOK_SECRET.
   * @defaultValue true in server mode (`tackle receive` runs the server's stack without signatures)
   */
  verifiesWebhooks?: boolean;
}

export const DEFAULT_MODEL = "claude-sonnet-4-6";

/**
 * The default model in each provider's naming: Bedrock's global inference profile (a regional one,
 * `us.`/`eu.`/…, keeps requests in its geography and costs 10% more), Vertex's id. The OpenAI-compatible
 * provider serves whatever its server names, so it has no default of ours.
 */
export const DEFAULT_MODELS: Readonly<Record<Exclude<ModelProvider, "openai">, string>> = {
  anthropic: DEFAULT_MODEL,
  bedrock: "global.anthropic.claude-sonnet-4-6",
  vertex: "claude-sonnet-4-6",
};

/** Probot's default webhook path. */
export const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";

/** `process.env`, or any plain object of variables (tests, the Action's inputs). */
export type EnvVars = Readonly<Record<string, string | undefined>>;

/** What each variable should hold, in the words a problem message uses. */
const EXPECTED: Record<string, string> = {
  APP_ID: "the App's numeric id",
  GHE_HOST: "a host name such as github.example.com, without protocol or path",
  GHE_PROTOCOL: "`http` or `https`",
  PORT: "a port number from 0 to 65535 (0: any free port)",
  HOST: "an address to listen on, such as 127.0.0.1, ::1 or localhost",
  WEBHOOK_PATH: "a path starting with /, such as /api/github/webhooks",
  WEBHOOK_PROXY_URL: "an http(s) URL, such as https://smee.io/<channel>",
  TACKLE_PUBLIC_URL: "the server's public http(s) URL, such as https://tackle.example.com",
  ANTHROPIC_BASE_URL: "an http(s) URL",
  TACKLE_PROVIDER: `one of ${MODEL_PROVIDERS.join(", ")}`,
  OPENAI_BASE_URL: "an http(s) URL of a chat-completions server, such as http://localhost:8000/v1",
  ANTHROPIC_BEDROCK_BASE_URL: "an http(s) URL",
  ANTHROPIC_VERTEX_BASE_URL: "an http(s) URL",
  ANTHROPIC_VERTEX_PROJECT_ID: "a Google Cloud project id, such as my-project-123",
  TACKLE_MODEL: "a model name without spaces",
  TACKLE_ALLOWED_MODELS: "a comma-separated list of model names",
  REDIS_URL: "a redis:// or rediss:// URL",
  TACKLE_SANDBOX: "`off`, or unset",
  TACKLE_BOT_NAME: "a name of letters, digits and dashes, such as `tackle`",
  TACKLE_DAILY_BUDGET_USD: "a positive number of US dollars (at most 1000000), such as 20 or 7.50",
  LOG_LEVEL: "one of fatal, error, warn, info, debug, trace, silent",
  GITHUB_API_URL: "an http(s) URL",
  GITHUB_SERVER_URL: "an http(s) URL",
  TACKLE_METRICS_TOKEN: "at least 16 characters, printable ASCII without spaces (it is sent in an Authorization header)",
  TACKLE_DASHBOARD_TOKEN: "at least 16 characters without spaces (e.g. `openssl rand -hex 32`)",
};

/** An unset and an empty variable are the same thing. */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

const httpUrl = z.string().refine((value) => /^https?:$/.test(safeUrl(value)?.protocol ?? ""));
const modelName = z.string().trim().regex(/^\S+$/);

const envSchema = z.object({
  APP_ID: optional(
    z
      .string()
      .trim()
      .regex(/^[1-9]\d*$/)
      .transform(Number),
  ),
  PRIVATE_KEY: optional(z.string()),
  PRIVATE_KEY_PATH: optional(z.string()),
  WEBHOOK_SECRET: optional(z.string()),
  GHE_HOST: optional(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9.-]+(?::\d+)?$/),
  ),
  GHE_PROTOCOL: optional(
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(["http", "https"])),
  ),
  PORT: optional(z.string().trim().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(0).max(65_535))),
  // A host name, an IPv4 address, or an IPv6 address (bare or in brackets).
  HOST: optional(
    z
      .string()
      .trim()
      .transform((host) => host.replace(/^\[(.*)\]$/, "$1"))
      .pipe(z.string().regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/)),
  ),
  WEBHOOK_PATH: optional(
    z
      .string()
      .trim()
      .regex(/^\/[^\s?#]*$/),
  ),
  WEBHOOK_PROXY_URL: optional(httpUrl),
  TACKLE_PUBLIC_URL: optional(httpUrl),
  ANTHROPIC_API_KEY: optional(z.string()),
  INPUT_ANTHROPIC_API_KEY: optional(z.string()),
  ANTHROPIC_BASE_URL: optional(httpUrl),
  TACKLE_PROVIDER: optional(z.string().trim().toLowerCase().pipe(z.enum(MODEL_PROVIDERS))),
  OPENAI_BASE_URL: optional(httpUrl),
  OPENAI_API_KEY: optional(z.string()),
  // The AWS and Google variables may serve other tools in the same environment: checked for shape
  // only when their provider is chosen (missingModelSettings).
  AWS_REGION: optional(z.string().trim()),
  AWS_DEFAULT_REGION: optional(z.string().trim()),
  AWS_ACCESS_KEY_ID: optional(z.string().trim()),
  AWS_SECRET_ACCESS_KEY: optional(z.string().trim()),
  AWS_SESSION_TOKEN: optional(z.string().trim()),
  AWS_BEARER_TOKEN_BEDROCK: optional(z.string().trim()),
  ANTHROPIC_BEDROCK_BASE_URL: optional(httpUrl),
  CLOUD_ML_REGION: optional(z.string().trim()),
  ANTHROPIC_VERTEX_PROJECT_ID: optional(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9.:_-]*$/),
  ),
  ANTHROPIC_VERTEX_BASE_URL: optional(httpUrl),
  GOOGLE_APPLICATION_CREDENTIALS: optional(z.string()),
  CLOUDSDK_CONFIG: optional(z.string()),
  TACKLE_MODEL: optional(modelName),
  TACKLE_ALLOWED_MODELS: optional(
    z
      .string()
      .transform((list) =>
        list
          .split(",")
          .map((model) => model.trim())
          .filter((model) => model !== ""),
      )
      .pipe(z.array(modelName)),
  ),
  REDIS_URL: optional(z.string().refine((value) => /^rediss?:$/.test(safeUrl(value)?.protocol ?? ""))),
  TACKLE_HOME: optional(z.string()),
  TACKLE_SANDBOX: optional(z.literal("off")),
  TACKLE_BOT_NAME: optional(
    z
      .string()
      .trim()
      .transform((name) => name.replace(/^@/, ""))
      .pipe(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/)),
  ),
  TACKLE_DAILY_BUDGET_USD: optional(
    z
      .string()
      .trim()
      .regex(/^\d+(?:\.\d+)?$/)
      .transform(Number)
      .pipe(z.number().positive().max(1_000_000)),
  ),
  LOG_LEVEL: optional(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])),
  GITHUB_API_URL: optional(httpUrl),
  GITHUB_SERVER_URL: optional(httpUrl),
  GITHUB_TOKEN: optional(z.string()),
  INPUT_GITHUB_TOKEN: optional(z.string()),
  // Printable ASCII without spaces: it must survive an HTTP header unchanged.
  TACKLE_METRICS_TOKEN: optional(z.string().regex(/^[\x21-\x7e]{16,}$/)),
  TACKLE_DASHBOARD_TOKEN: optional(
    z
      .string()
      .trim()
      .regex(/^\S{16,}$/),
  ),
});

type ParsedVars = z.output<typeof envSchema>;

export type EnvResult<M extends EnvMode> = { ok: true; env: TackleEnv<M> } | { ok: false; problems: string[] };

/**
 * Loads Tackle's settings from the environment. A pure function of its input (plus reading
 * PRIVATE_KEY_PATH); every problem is reported at once in one TackleError("env_invalid").
 */
export function loadEnv<M extends EnvMode = "server">(env: EnvVars = process.env, options: LoadEnvOptions<M> = {}): TackleEnv<M> {
  const result = parseEnv(env, options);
  if (result.ok) return result.env;
  throw new TackleError(
    "env_invalid",
    `Invalid environment (${result.problems.length} problem${result.problems.length === 1 ? "" : "s"}):\n` +
      result.problems.map((problem) => `- ${problem}`).join("\n"),
  );
}

/**
 * TACKLE_BOT_NAME as `loadEnv` reads it (null: unset), for a runner that needs the name before the
 * rest of its environment: the Action parses an event before it asks for a token, and must not take
 * a name `loadEnv` would refuse.
 */
export function loadBotName(env: EnvVars): string | null {
  const parsed = z.object({ TACKLE_BOT_NAME: envSchema.shape.TACKLE_BOT_NAME }).safeParse({ TACKLE_BOT_NAME: env.TACKLE_BOT_NAME });
  if (parsed.success) return parsed.data.TACKLE_BOT_NAME ?? null;
  const problem = describeIssue(parsed.error.issues[0]!, env);
  throw new TackleError("env_invalid", `Invalid environment (1 problem):\n- ${problem}`);
}

/** `loadEnv` without the throw, for `tackle doctor`. */
export function parseEnv<M extends EnvMode = "server">(env: EnvVars, options: LoadEnvOptions<M> = {}): EnvResult<M> {
  const mode = (options.mode ?? "server") as M;
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : [...new Set(parsed.error.issues.map((issue) => describeIssue(issue, env)))];
  const has = (name: string) => (env[name] ?? "").trim() !== "";
  problems.push(...missingForMode(env, has, mode, options.runsJobs, options.verifiesWebhooks ?? true));
  // Not in the schema: there an empty value means unset, and here it means "off".
  const fetchAllow = parseFetchAllow(env.TACKLE_FETCH_ALLOW);
  if (!fetchAllow.ok) problems.push(...fetchAllow.problems.map((problem) => `\`TACKLE_FETCH_ALLOW\`: ${problem}`));
  const modelPrices = parseModelPrices(env.TACKLE_MODEL_PRICES?.trim() || undefined);
  if (!modelPrices.ok) problems.push(...modelPrices.problems.map((problem) => `\`TACKLE_MODEL_PRICES\`: ${problem}`));
  const operatorSecrets = parseOperatorSecrets(env);
  problems.push(...operatorSecrets.problems);
  const wantsApp = mode === "server" || mode === "worker" || (mode !== "setup" && has("APP_ID"));
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const privateKey = wantsApp ? readPrivateKey(env, readFile, mode, problems) : undefined;
  if (!parsed.success || !fetchAllow.ok || !modelPrices.ok || problems.length > 0) return { ok: false, problems };

  const { APP_ID: appId, WEBHOOK_SECRET: webhookSecret } = parsed.data;
  const app = appId !== undefined && privateKey !== undefined ? { appId, privateKey, webhookSecret: webhookSecret ?? null } : null;
  const lists = { fetchAllow: fetchAllow.allow, modelPrices: modelPrices.prices, operatorSecrets: operatorSecrets.secrets };
  return { ok: true, env: build(parsed.data, mode, app, options.homeDir ?? homedir(), lists) };
}

function build<M extends EnvMode>(
  vars: ParsedVars,
  mode: M,
  app: AppCredentials | null,
  homeDir: string,
  lists: { fetchAllow: string[] | null; modelPrices: ConfiguredPrice[]; operatorSecrets: OperatorSecrets },
): TackleEnv<M> {
  const ghe = vars.GHE_HOST === undefined ? null : { host: vars.GHE_HOST, protocol: vars.GHE_PROTOCOL ?? "https" };
  const runner = mode === "action" && ghe === null;
  const githubServerUrl = trimSlash(ghe !== null ? `${ghe.protocol}://${ghe.host}` : ((runner ? vars.GITHUB_SERVER_URL : undefined) ?? "https://github.com"));
  const githubApiUrl = trimSlash(
    ghe !== null ? `${ghe.protocol}://${ghe.host}/api/v3` : ((runner ? vars.GITHUB_API_URL : undefined) ?? "https://api.github.com"),
  );
  const provider = vars.TACKLE_PROVIDER ?? "anthropic";
  const model = vars.TACKLE_MODEL ?? (provider === "openai" ? DEFAULT_MODEL : DEFAULT_MODELS[provider]);
  const apiKey = vars.ANTHROPIC_API_KEY ?? (mode === "action" ? vars.INPUT_ANTHROPIC_API_KEY : undefined);
  return {
    mode,
    // Server and worker modes never get here without credentials (missingForMode, readPrivateKey).
    app: app as TackleEnv<M>["app"],
    ghe,
    githubApiUrl,
    githubServerUrl,
    gitUrl: (owner, repo) => `${githubServerUrl}/${owner}/${repo}.git`,
    port: vars.PORT ?? 3000,
    host: vars.HOST ?? null,
    webhookPath: vars.WEBHOOK_PATH ?? DEFAULT_WEBHOOK_PATH,
    webhookProxyUrl: vars.WEBHOOK_PROXY_URL ?? null,
    publicUrl: vars.TACKLE_PUBLIC_URL === undefined ? null : trimSlash(vars.TACKLE_PUBLIC_URL),
    anthropicApiKey: apiKey ?? null,
    anthropicBaseUrl: vars.ANTHROPIC_BASE_URL ?? null,
    provider,
    openaiBaseUrl: vars.OPENAI_BASE_URL === undefined ? null : trimSlash(vars.OPENAI_BASE_URL),
    openaiApiKey: vars.OPENAI_API_KEY ?? null,
    modelPrices: lists.modelPrices,
    bedrock: provider === "bedrock" ? bedrockSettings(vars) : null,
    vertex: provider === "vertex" ? vertexSettings(vars, homeDir) : null,
    model,
    // The default model is always allowed: the operator chose it.
    allowedModels: [...new Set([model, ...(vars.TACKLE_ALLOWED_MODELS ?? [])])],
    redisUrl: vars.REDIS_URL ?? null,
    home: expandHome(vars.TACKLE_HOME ?? "~/.tackle", homeDir),
    sandbox: vars.TACKLE_SANDBOX === "off" ? "off" : "required",
    botName: vars.TACKLE_BOT_NAME ?? null,
    logLevel: vars.LOG_LEVEL ?? "info",
    githubToken: mode === "action" ? (vars.INPUT_GITHUB_TOKEN ?? vars.GITHUB_TOKEN ?? null) : null,
    fetchAllow: lists.fetchAllow,
    dailyBudgetUsd: vars.TACKLE_DAILY_BUDGET_USD ?? null,
    metricsToken: vars.TACKLE_METRICS_TOKEN ?? null,
    dashboardToken: vars.TACKLE_DASHBOARD_TOKEN ?? null,
    operatorSecrets: lists.operatorSecrets,
  };
}

function bedrockSettings(vars: ParsedVars): BedrockSettings {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = vars;
  return {
    region: vars.AWS_REGION ?? vars.AWS_DEFAULT_REGION ?? null,
    baseUrl: vars.ANTHROPIC_BEDROCK_BASE_URL ?? null,
    keys: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey, sessionToken: vars.AWS_SESSION_TOKEN ?? null } : null,
    apiKey: vars.AWS_BEARER_TOKEN_BEDROCK ?? null,
  };
}

function vertexSettings(vars: ParsedVars, homeDir: string): VertexSettings {
  return {
    region: vars.CLOUD_ML_REGION ?? null,
    projectId: vars.ANTHROPIC_VERTEX_PROJECT_ID ?? null,
    baseUrl: vars.ANTHROPIC_VERTEX_BASE_URL ?? null,
    credentialsFile: vars.GOOGLE_APPLICATION_CREDENTIALS ?? null,
    defaultCredentialsFile: join(vars.CLOUDSDK_CONFIG ?? join(homeDir, ".config", "gcloud"), "application_default_credentials.json"),
  };
}

/**
 * What the chosen provider (TACKLE_PROVIDER) lacks to run a job, one problem each: Anthropic's API
 * key; an OpenAI-compatible server's base URL and model name; Bedrock's region, and both halves of a key pair or neither; Vertex's region. Credentials the AWS
 * or Google SDK finds by itself (a profile, an instance role, the metadata server) cannot be seen
 * here and are not required; `tackle doctor` says which ones it finds.
 */
export function missingModelSettings(env: EnvVars, mode: EnvMode): string[] {
  const value = (name: string) => env[name]?.trim() ?? "";
  const provider = value("TACKLE_PROVIDER").toLowerCase() || "anthropic";
  const problems: string[] = [];
  if (provider === "anthropic" && !value("ANTHROPIC_API_KEY") && !(mode === "action" && value("INPUT_ANTHROPIC_API_KEY"))) {
    const input = mode === "action" ? " (or the `anthropic_api_key` input)" : "";
    problems.push(`\`ANTHROPIC_API_KEY\`${input}: required to run jobs in ${mode} mode`);
  }
  if (provider === "openai") {
    if (!value("OPENAI_BASE_URL")) {
      problems.push("`OPENAI_BASE_URL`: required to run jobs with TACKLE_PROVIDER=openai (the server's base URL, such as http://localhost:8000/v1)");
    }
    if (!value("TACKLE_MODEL")) problems.push("`TACKLE_MODEL`: required with TACKLE_PROVIDER=openai (the model name the server serves)");
  }
  if (provider === "bedrock") {
    const name = value("AWS_REGION") ? "AWS_REGION" : "AWS_DEFAULT_REGION";
    const region = value(name);
    if (!region) problems.push("`AWS_REGION`: required with TACKLE_PROVIDER=bedrock (the Bedrock runtime's region, such as us-east-1)");
    else if (!/^[a-z]{2}(?:-[a-z]+)+-\d+$/.test(region)) problems.push(`\`${name}\`: expected an AWS region such as us-east-1, got ${describeValue(region)}`);
    if (Boolean(value("AWS_ACCESS_KEY_ID")) !== Boolean(value("AWS_SECRET_ACCESS_KEY"))) {
      problems.push("`AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`: set both, or neither to use the AWS SDK's credential chain");
    }
  }
  if (provider === "vertex") {
    const region = value("CLOUD_ML_REGION");
    if (!region) problems.push("`CLOUD_ML_REGION`: required with TACKLE_PROVIDER=vertex (a Vertex AI region such as global or us-east5)");
    else if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(region))
      problems.push(`\`CLOUD_ML_REGION\`: expected a Vertex AI region such as global or us-east5, got ${describeValue(region)}`);
  }
  return problems;
}

function missingForMode(env: EnvVars, has: (name: string) => boolean, mode: EnvMode, runsJobs: boolean | undefined, verifiesWebhooks: boolean): string[] {
  const missing: string[] = [];
  if ((mode === "server" || mode === "worker") && !has("APP_ID")) missing.push(`\`APP_ID\`: required in ${mode} mode`);
  if (mode === "server" && verifiesWebhooks && !has("WEBHOOK_SECRET")) missing.push("`WEBHOOK_SECRET`: required in server mode");
  if (mode === "worker" && !has("REDIS_URL")) missing.push("`REDIS_URL`: required in worker mode");
  const jobs = runsJobs ?? (mode === "worker" || mode === "action" || (mode === "server" && !has("REDIS_URL")));
  if (jobs) missing.push(...missingModelSettings(env, mode));
  if (mode === "action" && !has("INPUT_GITHUB_TOKEN") && !has("GITHUB_TOKEN")) {
    missing.push("`GITHUB_TOKEN` (or the `github_token` input): required in action mode");
  }
  return missing;
}

/** PRIVATE_KEY wins over PRIVATE_KEY_PATH, as in Probot; a key with literal `\n` or in base64 is accepted. */
function readPrivateKey(env: EnvVars, readFile: (path: string) => string, mode: EnvMode, problems: string[]): string | undefined {
  const inline = env.PRIVATE_KEY?.trim();
  const path = env.PRIVATE_KEY_PATH?.trim();
  if (inline) {
    const key = normalizePem(inline);
    if (key === undefined) {
      problems.push("`PRIVATE_KEY`: expected a PEM private key (-----BEGIN … PRIVATE KEY-----), with line breaks or literal \\n");
    }
    return key;
  }
  if (!path) {
    const why = mode === "server" || mode === "worker" ? `required in ${mode} mode` : "required when APP_ID is set";
    problems.push(`\`PRIVATE_KEY\` or \`PRIVATE_KEY_PATH\`: ${why}`);
    return undefined;
  }
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push(`\`PRIVATE_KEY_PATH\`: cannot read ${path}: ${reason}`);
    return undefined;
  }
  const key = normalizePem(text);
  if (key === undefined) problems.push(`\`PRIVATE_KEY_PATH\`: ${path} does not hold a PEM private key`);
  return key;
}

function normalizePem(raw: string): string | undefined {
  // `docker run --env-file` keeps the quotes a .env file puts around a value: one pair is dropped.
  let key = raw
    .trim()
    .replace(/^"([\s\S]*)"$/, "$1")
    .replace(/\\n/g, "\n");
  if (!key.includes("-----BEGIN")) key = Buffer.from(key, "base64").toString("utf8").trim();
  return /^-----BEGIN [A-Z ]*PRIVATE KEY-----\n[\s\S]+\n-----END [A-Z ]*PRIVATE KEY-----$/.test(key) ? `${key}\n` : undefined;
}

function describeIssue(issue: z.core.$ZodIssue, env: EnvVars): string {
  const name = String(issue.path[0] ?? "");
  const expected = EXPECTED[name];
  const text = expected === undefined ? issue.message : `expected ${expected}`;
  // A credential is never echoed; any other value with a URL's password masked before it is cut to size.
  if (isSecretName(name)) return `\`${name}\`: ${text}`;
  const value = env[name];
  return `\`${name}\`: ${text}, got ${describeValue(value === undefined ? value : maskUrl(value))}`;
}

function expandHome(path: string, homeDir: string): string {
  if (path === "~") return homeDir;
  if (path.startsWith("~/")) return join(homeDir, path.slice(2));
  return resolve(path);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
