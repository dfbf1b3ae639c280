// Loaded by vertex-client.ts on the first call only. A module of ours rather than a dynamic import of
// google-auth-library itself: in the split CLI bundle, a dynamic import of a CommonJS package has only
// a default export, while a static one here gets its named exports.
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { GoogleAuth } from "google-auth-library";
import type { ModelFetch } from "./capped-model-fetch.js";
import type { VertexClientOptions } from "./vertex-client.js";

const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/**
 * The Vertex SDK client over a Google auth client built here, so its failure is this call's. Model
 * calls go through `fetch` (cappedModelFetch); the token requests are google-auth-library's own.
 */
export async function buildVertexSdk(options: VertexClientOptions, maxRetries: number, fetch: ModelFetch): Promise<AnthropicVertex> {
  // The file is passed, never left to the library: it would read GOOGLE_APPLICATION_CREDENTIALS
  // from process.env, beside the environment Tackle was given.
  const auth = new GoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE, ...(options.keyFile !== undefined && { keyFilename: options.keyFile }) });
  const authClient = await auth.getClient();
  return new AnthropicVertex({
    region: options.region,
    authClient,
    ...(options.projectId !== undefined && { projectId: options.projectId }),
    ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
    maxRetries,
    fetch,
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
  });
}
