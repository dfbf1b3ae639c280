import { modelRetryDelayMs, waitToRetry } from "./model-retry.js";
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { errorMessage, TackleError } from "../errors/tackle-error.js";
import { accumulateMessage } from "./accumulate-message.js";
import { cappedModelFetch, type ModelFetch } from "./capped-model-fetch.js";
import type { MessageRequest, ModelClient, ModelMessage } from "./model-client.js";

export interface AnthropicClientOptions {
  /** @defaultValue the SDK's own: `ANTHROPIC_API_KEY` */
  apiKey?: string;
  /** Bearer token instead of an API key. @defaultValue the SDK's own: `ANTHROPIC_AUTH_TOKEN` */
  authToken?: string;
  /** @defaultValue the SDK's own: `ANTHROPIC_BASE_URL`, else https://api.anthropic.com */
  baseURL?: string;
  /**
   * Retries of 408/409/429/5xx/529 and connection errors, with the SDK's backoff (which honours
   * `retry-after`); the same count bounds retries of errors sent mid-stream.
   * @defaultValue 4
   */
  maxRetries?: number;
  /** Per-request timeout. @defaultValue the SDK's (10 minutes) */
  timeoutMs?: number;
}

/**
 * Error types sent inside a 200 stream that another attempt may get past: the Messages API's, and
 * the exceptions Bedrock sends as event-stream frames (which its SDK passes on as the error's type).
 */
const RETRYABLE_STREAM_ERRORS = new Set([
  "overloaded_error",
  "rate_limit_error",
  "api_error",
  "timeout_error",
  "throttlingException",
  "serviceUnavailableException",
  "internalServerException",
  "modelStreamErrorException",
]);

/** Each provider's client's `maxRetries` when unset. */
export const DEFAULT_MAX_RETRIES = 4;

/**
 * The Anthropic Messages API through the official SDK. See createStreamingClient for what is retried.
 */
export function createAnthropicClient(options: AnthropicClientOptions = {}): ModelClient {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  return createStreamingClient({
    name: "anthropic",
    api: "Anthropic API",
    maxRetries,
    sdk: (fetch) =>
      new Anthropic({
        maxRetries,
        fetch,
        ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
        ...(options.authToken !== undefined && { authToken: options.authToken }),
        ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
        ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
      }),
  });
}

/**
 * What the streaming loop needs of an SDK client. The Bedrock and Vertex SDKs extend the Anthropic
 * one and expose the same `messages.create`: only the wire under it differs.
 */
export interface MessagesApi {
  messages: Pick<Anthropic["messages"], "create">;
}

export interface StreamingClientOptions {
  /** The ModelClient's name (`anthropic`, `bedrock`, `vertex`). */
  name: string;
  /** What error messages call the service: `Anthropic API`, `Bedrock`, `Vertex AI`. */
  api: string;
  /** The SDK client's own retry count; the same count bounds retries of errors sent mid-stream. */
  maxRetries: number;
  /**
   * Builds the SDK client, on the first call rather than at construction, so a provider's SDK is
   * loaded only when chosen and its credentials resolved where a failure can be reported. Kept once
   * built; a build that fails fails that call and is tried again on the next. `fetch` is the one the
   * SDK must be given as its own: it caps each response (cappedModelFetch).
   */
  sdk: (fetch: ModelFetch) => MessagesApi | Promise<MessagesApi>;
}

/**
 * A ModelClient over any SDK client with the Messages API, always streaming (long outputs would hit
 * the non-streaming timeout). The SDK retries what fails before the stream starts (HTTP status,
 * connection); what fails inside the stream (an error event, a cut connection, no message_stop) is
 * retried here, except what is refused for good: a response past MAX_MODEL_RESPONSE_BYTES (the SDK
 * sends through cappedModelFetch) or a usage count that is not one (tokenCount). The events are
 * accumulated by accumulateMessage, so a tool call with malformed JSON input comes back marked instead
 * of failing the call. What still fails becomes a TackleError.
 */
export function createStreamingClient(options: StreamingClientOptions): ModelClient {
  const { api, maxRetries } = options;
  const fetch = cappedModelFetch(api);
  let built: Promise<MessagesApi> | undefined;
  const sdk = () =>
    (built ??= Promise.resolve()
      .then(() => options.sdk(fetch))
      .catch((error: unknown) => {
        built = undefined;
        throw error;
      }));
  return {
    name: options.name,
    async create(request: MessageRequest, signal: AbortSignal): Promise<ModelMessage> {
      let client: MessagesApi;
      try {
        client = await sdk();
      } catch (error) {
        throw toTackleError(error, signal, api);
      }
      for (let attempt = 0; ; attempt++) {
        let streaming = false;
        try {
          const events = await client.messages.create({ ...request, stream: true }, { signal });
          streaming = true;
          return await accumulateMessage(events, api);
        } catch (error) {
          const mapped = streaming ? toStreamFailure(error, signal, api) : toTackleError(error, signal, api);
          if (!(streaming && mapped.retryable && attempt < maxRetries)) throw mapped;
          await waitToRetry(modelRetryDelayMs(attempt), signal);
        }
      }
    },
  };
}

/**
 * Decides on `error.status` (or, for an error event sent inside a 200 stream, on its `type`), never
 * on the message text.
 */
export function toTackleError(error: unknown, signal?: AbortSignal, api = "Anthropic API"): TackleError {
  if (error instanceof TackleError) return error;
  if (signal?.aborted === true || error instanceof APIUserAbortError) {
    return new TackleError("aborted", "the model call was aborted", { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new TackleError("model_api", `could not reach the ${api}: ${error.message}`, {
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    const status = error.status;
    const retryable =
      status === undefined
        ? error.type !== null && RETRYABLE_STREAM_ERRORS.has(error.type)
        : status === 408 || status === 409 || status === 429 || status >= 500;
    const what = status === undefined ? `stream error ${error.type ?? "unknown"}` : `HTTP ${status}`;
    return new TackleError("model_api", `${api} ${what}: ${error.apiMessage ?? topLevelMessage(error.error) ?? error.message}`, {
      retryable,
      cause: error,
    });
  }
  return new TackleError("model_api", `model call failed: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

/** Bedrock's error bodies are `{"message": …}`, not the Messages API's `{"error": {"message": …}}`. */
function topLevelMessage(body: unknown): string | undefined {
  const message = typeof body === "object" && body !== null ? (body as { message?: unknown }).message : undefined;
  return typeof message === "string" ? message : undefined;
}

/**
 * A failure after the response started: an error event is judged by its type; anything else the
 * stream throws (a reset connection, a garbled event) cut the stream, which another attempt may get past.
 */
function toStreamFailure(error: unknown, signal: AbortSignal, api: string): TackleError {
  // The SDK ends the iteration quietly on an abort, which reads as a stream without message_stop.
  if (signal.aborted) return new TackleError("aborted", "the model call was aborted", { cause: error });
  if (error instanceof TackleError || error instanceof APIError || error instanceof APIUserAbortError) return toTackleError(error, signal, api);
  return new TackleError("model_api", `${api} stream cut: ${errorMessage(error)}`, { retryable: true, cause: error });
}
