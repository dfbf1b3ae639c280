import { createAnthropicClient, createBedrockClient, createOpenAIClient, createVertexClient, type ModelClient } from "../agent/index.js";
import { providerPrice } from "../agent/pricing.js";
import type { TackleEnv } from "../config/index.js";
import { TackleError } from "../errors/index.js";

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
