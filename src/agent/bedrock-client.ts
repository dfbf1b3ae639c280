import { createStreamingClient, DEFAULT_MAX_RETRIES } from "./anthropic-client.js";
import type { ModelClient } from "./model-client.js";

export interface BedrockClientOptions {
  /** The AWS region whose Bedrock runtime answers (`AWS_REGION`). */
  region: string;
  /** @defaultValue `https://bedrock-runtime.{region}.amazonaws.com` */
  baseURL?: string;
  /**
   * Static keys (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
   * @defaultValue the AWS SDK's default credential chain: `AWS_PROFILE` and ~/.aws, SSO, web identity
   * (`AWS_WEB_IDENTITY_TOKEN_FILE`), the ECS task role and the EC2 instance role
   */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** A Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`), sent as a bearer token instead of a SigV4 signature. */
  apiKey?: string;
  /** See AnthropicClientOptions. @defaultValue 4 */
  maxRetries?: number;
  /** Per-request timeout. @defaultValue the SDK's (10 minutes) */
  timeoutMs?: number;
}

/**
 * Claude on Amazon Bedrock through `@anthropic-ai/bedrock-sdk`: the Messages API moved to
 * `/model/{id}/invoke-with-response-stream`, signed with SigV4, answered in AWS event-stream frames
 * that the SDK turns back into the Messages API's events. The SDK is loaded on the first call, so a
 * process that never uses Bedrock never loads the AWS SDK.
 */
export function createBedrockClient(options: BedrockClientOptions): ModelClient {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  return createStreamingClient({
    name: "bedrock",
    api: "Bedrock",
    maxRetries,
    sdk: async (fetch) => {
      const { AnthropicBedrock } = await import("@anthropic-ai/bedrock-sdk");
      const common = {
        awsRegion: options.region,
        // Passed, never left to the SDK: it would read ANTHROPIC_BEDROCK_BASE_URL and
        // AWS_BEARER_TOKEN_BEDROCK from process.env, beside the environment Tackle was given.
        baseURL: options.baseURL ?? `https://bedrock-runtime.${options.region}.amazonaws.com`,
        apiKey: options.apiKey ?? null,
        maxRetries,
        fetch,
        ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
      };
      const keys = options.credentials;
      if (keys === undefined) return new AnthropicBedrock(common);
      return new AnthropicBedrock({
        ...common,
        awsAccessKey: keys.accessKeyId,
        awsSecretKey: keys.secretAccessKey,
        awsSessionToken: keys.sessionToken ?? null,
      });
    },
  });
}
