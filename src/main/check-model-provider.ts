import { openaiTarget } from "../agent/openai-client.js";
import { MODEL_PROVIDERS } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import { maskUrl } from "../logging/mask-url.js";
import type { Check } from "./doctor.js";
import { anthropicKey, modelProviderChecks } from "./model-provider-checks.js";

/** How long `tackle doctor` waits for a model server. */
const PROBE_TIMEOUT_MS = 5000;

/**
 * The model provider TACKLE_PROVIDER names: its credentials are set and, for a server of ours to reach
 * (openai), that it answers and serves TACKLE_MODEL; bedrock and vertex as modelProviderChecks says. Keys are never
 * shown; a URL is shown with its password masked.
 */
export async function checkModelProvider(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const provider = env.TACKLE_PROVIDER?.trim().toLowerCase() || "anthropic";
  switch (provider) {
    case "anthropic":
      return [anthropicKey(env)];
    case "openai":
      return [await openaiServer(env)];
    case "bedrock":
    case "vertex":
      return modelProviderChecks(env);
    default:
      return [
        {
          name: "model provider",
          ok: false,
          detail: `TACKLE_PROVIDER=${env.TACKLE_PROVIDER} is not a provider`,
          fix: `set TACKLE_PROVIDER to one of ${MODEL_PROVIDERS.join(", ")} (or unset it: anthropic)`,
        },
      ];
  }
}

/** Asks `GET {base}/models`, which vLLM, Ollama, LiteLLM and OpenAI all serve, with the key if there is one. */
async function openaiServer(env: NodeJS.ProcessEnv): Promise<Check> {
  const name = "model server";
  const base = env.OPENAI_BASE_URL?.trim().replace(/\/+$/, "");
  if (!base) {
    return {
      name,
      ok: false,
      detail: "TACKLE_PROVIDER=openai and OPENAI_BASE_URL is not set",
      fix: "export OPENAI_BASE_URL=http://localhost:8000/v1 (the server's base URL, /v1 included)",
    };
  }
  const where = maskUrl(base);
  const model = env.TACKLE_MODEL?.trim();
  if (!model) return { name, ok: false, detail: `${where}: TACKLE_MODEL is not set`, fix: "export TACKLE_MODEL=<the model name the server serves>" };
  const key = env.OPENAI_API_KEY ? "with OPENAI_API_KEY" : "without a key";
  let response: Response;
  try {
    const target = openaiTarget(base, "models", env.OPENAI_API_KEY);
    response = await fetch(target.url, { headers: target.headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return { name, ok: false, detail: `${where}: not reachable: ${errorMessage(error)}${cause}`, fix: "start the server, or fix OPENAI_BASE_URL" };
  }
  if (response.status === 401 || response.status === 403) {
    return { name, ok: false, detail: `${where} refused the request ${key} (HTTP ${response.status})`, fix: "set OPENAI_API_KEY to a key the server accepts" };
  }
  if (!response.ok) return { name, ok: true, detail: `${where} answers (GET /models: HTTP ${response.status}); model ${model} not checked` };
  const served = await servedModels(response);
  if (served === undefined || served.includes(model)) return { name, ok: true, detail: `${where} answers ${key} and serves ${model}` };
  const listed = served.length > 10 ? `${served.slice(0, 10).join(", ")}, …` : served.join(", ");
  return {
    name,
    ok: false,
    detail: `${where} does not list ${model} (it serves: ${listed || "nothing"})`,
    fix: "set TACKLE_MODEL to a model the server serves",
  };
}

/** The ids of `{data: [{id}]}`, or undefined when the answer has another shape. */
async function servedModels(response: Response): Promise<string[] | undefined> {
  try {
    const body = (await response.json()) as { data?: Array<{ id?: unknown }> };
    return Array.isArray(body.data) ? body.data.flatMap((entry) => (typeof entry.id === "string" ? [entry.id] : [])) : undefined;
  } catch {
    return undefined;
  }
}
