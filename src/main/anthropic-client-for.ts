import { createAnthropicClient } from "../agent/index.js";
import type { ModelClient } from "../agent/model-client.js";
import type { TackleEnv } from "../config/index.js";

/** The Messages API client over the contract's ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, for every entry point. */
export function anthropicClientFor(env: Pick<TackleEnv, "anthropicApiKey" | "anthropicBaseUrl">): ModelClient {
  return createAnthropicClient({
    ...(env.anthropicApiKey ? { apiKey: env.anthropicApiKey } : {}),
    ...(env.anthropicBaseUrl ? { baseURL: env.anthropicBaseUrl } : {}),
  });
}
