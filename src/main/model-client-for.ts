import { readFileSync } from "node:fs";
import { createAnthropicClient, createBedrockClient, createOpenAIClient, createVertexClient, type ModelClient } from "../agent/index.js";
import { providerPrice } from "../agent/pricing.js";
import type { TackleEnv } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { urlSecrets } from "../logging/mask-url.js";

/** What choosing, building and pricing a model client reads of the environment. */
export type ModelEnv = Pick<
  TackleEnv,
  "provider" | "anthropicApiKey" | "anthropicBaseUrl" | "openaiBaseUrl" | "openaiApiKey" | "modelPrices" | "bedrock" | "vertex"
>;

/**
 * The model client of the chosen provider (TACKLE_PROVIDER), for every entry point, priced by that
 * provider's table and the operator's TACKLE_MODEL_PRICES. Each provider's SDK gets its settings from
 * the parsed environment, never from process.env behind Tackle's back.
 */
export function modelClientFor(env: ModelEnv): ModelClient {
  const client = providerClient(env);
  return { ...client, price: (model) => providerPrice(env.provider, model, env.modelPrices) };
}

function providerClient(env: ModelEnv): ModelClient {
  switch (env.provider) {
    case "anthropic":
      return createAnthropicClient({
        ...(env.anthropicApiKey ? { apiKey: env.anthropicApiKey } : {}),
        ...(env.anthropicBaseUrl ? { baseURL: env.anthropicBaseUrl } : {}),
      });
    case "openai":
      if (env.openaiBaseUrl === null) throw new TackleError("env_invalid", "TACKLE_PROVIDER=openai needs OPENAI_BASE_URL (such as http://localhost:8000/v1)");
      return createOpenAIClient({ baseURL: env.openaiBaseUrl, ...(env.openaiApiKey ? { apiKey: env.openaiApiKey } : {}) });
    case "bedrock": {
      const bedrock = env.bedrock;
      if (!bedrock?.region) throw unset("AWS_REGION", "bedrock");
      return createBedrockClient({
        region: bedrock.region,
        ...(bedrock.baseUrl ? { baseURL: bedrock.baseUrl } : {}),
        ...(bedrock.apiKey ? { apiKey: bedrock.apiKey } : {}),
        ...(bedrock.keys
          ? {
              credentials: {
                accessKeyId: bedrock.keys.accessKeyId,
                secretAccessKey: bedrock.keys.secretAccessKey,
                ...(bedrock.keys.sessionToken ? { sessionToken: bedrock.keys.sessionToken } : {}),
              },
            }
          : {}),
      });
    }
    case "vertex": {
      const vertex = env.vertex;
      if (!vertex?.region) throw unset("CLOUD_ML_REGION", "vertex");
      return createVertexClient({
        region: vertex.region,
        ...(vertex.projectId ? { projectId: vertex.projectId } : {}),
        ...(vertex.baseUrl ? { baseURL: vertex.baseUrl } : {}),
        ...(vertex.credentialsFile ? { keyFile: vertex.credentialsFile } : {}),
      });
    }
  }
}

function unset(name: string, provider: string): TackleError {
  return new TackleError("env_invalid", `${name} is not set: TACKLE_PROVIDER=${provider} needs it to reach the model`);
}

/** Fields of a Google credentials file that are credentials (the rest names accounts and endpoints). */
const GOOGLE_SECRET_FIELDS = ["private_key", "private_key_id", "client_secret", "refresh_token"];

/**
 * The model provider's credentials, masked by value in everything a job writes: the Anthropic key, the
 * OpenAI key and a password inside OPENAI_BASE_URL, Bedrock's keys, session token and API key, and the
 * secrets inside Vertex's credentials file (which is read here for that; one that cannot be read adds
 * nothing, and fails the first model call instead).
 */
export function modelSecretsFor(env: ModelEnv, readFile: (path: string) => string = (path) => readFileSync(path, "utf8")): string[] {
  const secrets = [env.anthropicApiKey, env.openaiApiKey, ...(env.openaiBaseUrl === null ? [] : urlSecrets(env.openaiBaseUrl))];
  const keys = env.bedrock?.keys;
  secrets.push(env.bedrock?.apiKey ?? null, keys?.accessKeyId ?? null, keys?.secretAccessKey ?? null, keys?.sessionToken ?? null);
  // Without GOOGLE_APPLICATION_CREDENTIALS the Google library reads gcloud's file, when there is one.
  const file = env.vertex ? (env.vertex.credentialsFile ?? env.vertex.defaultCredentialsFile) : null;
  if (file) secrets.push(...googleFileSecrets(file, readFile));
  return secrets.filter((secret): secret is string => Boolean(secret));
}

function googleFileSecrets(file: string, readFile: (path: string) => string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFile(file));
  } catch {
    return [];
  }
  return secretFields(parsed);
}

/** The secret fields at any depth: an impersonated service account keeps its user's in `source_credentials`. */
function secretFields(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  const fields = value as Record<string, unknown>;
  const own = GOOGLE_SECRET_FIELDS.map((name) => fields[name]).filter((field): field is string => typeof field === "string");
  return [...own, ...Object.values(fields).flatMap(secretFields)];
}
