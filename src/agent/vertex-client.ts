import { createStreamingClient, DEFAULT_MAX_RETRIES } from "./anthropic-client.js";
import type { ModelClient } from "./model-client.js";

export interface VertexClientOptions {
  /** The Vertex AI region (`CLOUD_ML_REGION`): `global`, `us`, `eu` or one such as `us-east5`. */
  region: string;
  /** The Google Cloud project (`ANTHROPIC_VERTEX_PROJECT_ID`). @defaultValue the credentials' own project */
  projectId?: string;
  /** @defaultValue the SDK's for the region, such as `https://us-east5-aiplatform.googleapis.com/v1` */
  baseURL?: string;
  /**
   * A Google credentials file (`GOOGLE_APPLICATION_CREDENTIALS`): a service account key, an
   * authorized user, or an external account (workload identity federation).
   * @defaultValue Application Default Credentials: gcloud's file, then the metadata server
   */
  keyFile?: string;
  /** See AnthropicClientOptions. @defaultValue 4 */
  maxRetries?: number;
  /** Per-request timeout. @defaultValue the SDK's (10 minutes) */
  timeoutMs?: number;
}

/**
 * Claude on Vertex AI through `@anthropic-ai/vertex-sdk`: the Messages API moved to
 * `/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:streamRawPredict`, with a Google
 * OAuth bearer token. The Google client is built on the first call, not in the SDK's constructor: a
 * credentials problem then fails that call with a TackleError instead of rejecting a promise nobody
 * awaits yet. Loaded only when used, like the Bedrock client.
 */
export function createVertexClient(options: VertexClientOptions): ModelClient {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  return createStreamingClient({
    name: "vertex",
    api: "Vertex AI",
    maxRetries,
    sdk: async (fetch) => (await import("./build-vertex-sdk.js")).buildVertexSdk(options, maxRetries, fetch),
  });
}
