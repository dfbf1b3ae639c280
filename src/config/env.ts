import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { TackleError } from "../errors/index.js";
import { parseFetchAllow } from "./parse-fetch-allow.js";
import { parseModelPrices, type ConfiguredPrice } from "./parse-model-prices.js";
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
  /** TACKLE_MODEL. @defaultValue "claude-sonnet-4-6" (required with TACKLE_PROVIDER=openai) */
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
}

export interface LoadEnvOptions<M extends EnvMode> {
  /** @defaultValue "server" */
  mode?: M;
  /**
   * Whether this process runs jobs, which needs the provider's credentials (ANTHROPIC_API_KEY; for
   * `openai`, OPENAI_BASE_URL and TACKLE_MODEL).
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

/** Probot's default webhook path. */
export const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";

/** `process.env`, or any plain object of variables (tests, the Action's inputs). */
export type EnvVars = Readonly<Record<string, string | undefined>>;

/** Variables whose values never appear in a problem message. */
const SECRETS = new Set([
  "PRIVATE_KEY",
  "WEBHOOK_SECRET",
  "ANTHROPIC_API_KEY",
  "INPUT_ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "REDIS_URL",
  "GITHUB_TOKEN",
  "INPUT_GITHUB_TOKEN",
  "TACKLE_METRICS_TOKEN",
  "TACKLE_DASHBOARD_TOKEN",
]);

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

/** `loadEnv` without the throw, for `tackle doctor`. */
export function parseEnv<M extends EnvMode = "server">(env: EnvVars, options: LoadEnvOptions<M> = {}): EnvResult<M> {
  const mode = (options.mode ?? "server") as M;
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : [...new Set(parsed.error.issues.map((issue) => describeIssue(issue, env)))];
  const has = (name: string) => (env[name] ?? "").trim() !== "";
  // An unknown provider is reported by the schema; whose credentials are missing is then unknown too.
  const provider = MODEL_PROVIDERS.find((name) => name === (env.TACKLE_PROVIDER?.trim().toLowerCase() || "anthropic"));
  problems.push(...missingForMode(has, mode, options.runsJobs, options.verifiesWebhooks ?? true, provider));
  // Not in the schema: there an empty value means unset, and here it means "off".
  const fetchAllow = parseFetchAllow(env.TACKLE_FETCH_ALLOW);
  if (!fetchAllow.ok) problems.push(...fetchAllow.problems.map((problem) => `\`TACKLE_FETCH_ALLOW\`: ${problem}`));
  const modelPrices = parseModelPrices(env.TACKLE_MODEL_PRICES?.trim() || undefined);
  if (!modelPrices.ok) problems.push(...modelPrices.problems.map((problem) => `\`TACKLE_MODEL_PRICES\`: ${problem}`));
  const wantsApp = mode === "server" || mode === "worker" || (mode !== "setup" && has("APP_ID"));
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const privateKey = wantsApp ? readPrivateKey(env, readFile, mode, problems) : undefined;
  if (!parsed.success || !fetchAllow.ok || !modelPrices.ok || problems.length > 0) return { ok: false, problems };

  const { APP_ID: appId, WEBHOOK_SECRET: webhookSecret } = parsed.data;
  const app = appId !== undefined && privateKey !== undefined ? { appId, privateKey, webhookSecret: webhookSecret ?? null } : null;
  const lists = { fetchAllow: fetchAllow.allow, modelPrices: modelPrices.prices };
  return { ok: true, env: build(parsed.data, mode, app, options.homeDir ?? homedir(), lists) };
}

function build<M extends EnvMode>(
  vars: ParsedVars,
  mode: M,
  app: AppCredentials | null,
  homeDir: string,
  lists: { fetchAllow: string[] | null; modelPrices: ConfiguredPrice[] },
): TackleEnv<M> {
  const ghe = vars.GHE_HOST === undefined ? null : { host: vars.GHE_HOST, protocol: vars.GHE_PROTOCOL ?? "https" };
  const runner = mode === "action" && ghe === null;
  const githubServerUrl = trimSlash(ghe !== null ? `${ghe.protocol}://${ghe.host}` : ((runner ? vars.GITHUB_SERVER_URL : undefined) ?? "https://github.com"));
  const githubApiUrl = trimSlash(
    ghe !== null ? `${ghe.protocol}://${ghe.host}/api/v3` : ((runner ? vars.GITHUB_API_URL : undefined) ?? "https://api.github.com"),
  );
  const model = vars.TACKLE_MODEL ?? DEFAULT_MODEL;
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
    provider: vars.TACKLE_PROVIDER ?? "anthropic",
    openaiBaseUrl: vars.OPENAI_BASE_URL === undefined ? null : trimSlash(vars.OPENAI_BASE_URL),
    openaiApiKey: vars.OPENAI_API_KEY ?? null,
    modelPrices: lists.modelPrices,
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
  };
}

function missingForMode(
  has: (name: string) => boolean,
  mode: EnvMode,
  runsJobs: boolean | undefined,
  verifiesWebhooks: boolean,
  provider: ModelProvider | undefined,
): string[] {
  const missing: string[] = [];
  if ((mode === "server" || mode === "worker") && !has("APP_ID")) missing.push(`\`APP_ID\`: required in ${mode} mode`);
  if (mode === "server" && verifiesWebhooks && !has("WEBHOOK_SECRET")) missing.push("`WEBHOOK_SECRET`: required in server mode");
  if (mode === "worker" && !has("REDIS_URL")) missing.push("`REDIS_URL`: required in worker mode");
  const jobs = runsJobs ?? (mode === "worker" || mode === "action" || (mode === "server" && !has("REDIS_URL")));
  if (jobs) missing.push(...missingProviderCredentials(has, mode, provider));
  if (mode === "action" && !has("INPUT_GITHUB_TOKEN") && !has("GITHUB_TOKEN")) {
    missing.push("`GITHUB_TOKEN` (or the `github_token` input): required in action mode");
  }
  return missing;
}

/** What the chosen provider needs to run a job; bedrock and vertex read their SDKs' own credentials. */
function missingProviderCredentials(has: (name: string) => boolean, mode: EnvMode, provider: ModelProvider | undefined): string[] {
  if (provider === "openai") {
    return [
      ...(has("OPENAI_BASE_URL")
        ? []
        : [`\`OPENAI_BASE_URL\`: required to run jobs with TACKLE_PROVIDER=openai (the server's base URL, such as http://localhost:8000/v1)`]),
      ...(has("TACKLE_MODEL") ? [] : ["`TACKLE_MODEL`: required with TACKLE_PROVIDER=openai (the model name the server serves)"]),
    ];
  }
  if (provider !== "anthropic") return [];
  if (has("ANTHROPIC_API_KEY") || (mode === "action" && has("INPUT_ANTHROPIC_API_KEY"))) return [];
  const input = mode === "action" ? " (or the `anthropic_api_key` input)" : "";
  return [`\`ANTHROPIC_API_KEY\`${input}: required to run jobs in ${mode} mode`];
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
  if (SECRETS.has(name)) return `\`${name}\`: ${text}`;
  return `\`${name}\`: ${text}, got ${describeValue(env[name])}`;
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
