import { createOpenAIClient } from "../agent/index.js";
import type { ModelClient } from "../agent/model-client.js";
import { providerPrice } from "../agent/pricing.js";
import type { TackleEnv } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { urlSecrets } from "../logging/mask-url.js";
import { anthropicClientFor } from "./anthropic-client-for.js";

type ProviderEnv = Pick<TackleEnv, "provider" | "anthropicApiKey" | "anthropicBaseUrl" | "openaiBaseUrl" | "openaiApiKey" | "modelPrices">;

/**
 * The model client of the provider TACKLE_PROVIDER names, for every entry point, priced by that
 * provider's table and the operator's TACKLE_MODEL_PRICES.
 */
export function modelClientFor(env: ProviderEnv): ModelClient {
  const client = providerClient(env);
  return { ...client, price: (model) => providerPrice(env.provider, model, env.modelPrices) };
}

function providerClient(env: ProviderEnv): ModelClient {
  switch (env.provider) {
    case "anthropic":
      return anthropicClientFor(env);
    case "openai":
      if (env.openaiBaseUrl === null) throw new TackleError("env_invalid", "TACKLE_PROVIDER=openai needs OPENAI_BASE_URL (such as http://localhost:8000/v1)");
      return createOpenAIClient({ baseURL: env.openaiBaseUrl, ...(env.openaiApiKey ? { apiKey: env.openaiApiKey } : {}) });
    case "bedrock":
    case "vertex":
      throw new TackleError("env_invalid", `TACKLE_PROVIDER=${env.provider} is not built yet`);
  }
}

/**
 * Why the chosen provider cannot serve a job, in words for the operator; undefined when it can. For
 * entry points that load the environment without requiring the model's credentials (local, Action).
 */
export function missingModelCredentials(env: ProviderEnv): string | undefined {
  switch (env.provider) {
    case "anthropic":
      return env.anthropicApiKey ? undefined : "ANTHROPIC_API_KEY is not set";
    case "openai":
      return env.openaiBaseUrl === null ? "TACKLE_PROVIDER=openai needs OPENAI_BASE_URL (the server's base URL, such as http://localhost:8000/v1)" : undefined;
    case "bedrock":
    case "vertex":
      return undefined;
  }
}

/** The provider's credentials, for the redaction list: keys, and a password inside a base URL. */
export function modelSecrets(env: ProviderEnv): string[] {
  return [env.anthropicApiKey, env.openaiApiKey, ...(env.openaiBaseUrl === null ? [] : urlSecrets(env.openaiBaseUrl))].filter((s): s is string => Boolean(s));
}
