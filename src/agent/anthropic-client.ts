import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { errorMessage, TackleError } from "../errors/tackle-error.js";
import { accumulateMessage } from "./accumulate-message.js";
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

/** Error types the API sends inside a 200 stream that another attempt may get past. */
const RETRYABLE_STREAM_ERRORS = new Set(["overloaded_error", "rate_limit_error", "api_error", "timeout_error"]);

/**
 * The Anthropic Messages API through the official SDK, always streaming (long outputs would hit the
 * non-streaming timeout). The SDK retries what fails before the stream starts (HTTP status, connection);
 * what fails inside the stream (an error event, a cut connection, no message_stop) is retried here. The
 * events are accumulated by accumulateMessage, so a tool call with malformed JSON input comes back
 * marked instead of failing the call. What still fails becomes a TackleError.
 */
export function createAnthropicClient(options: AnthropicClientOptions = {}): ModelClient {
  const maxRetries = options.maxRetries ?? 4;
  const client = new Anthropic({
    maxRetries,
    ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
    ...(options.authToken !== undefined && { authToken: options.authToken }),
    ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
  });

  return {
    name: "anthropic",
    async create(request: MessageRequest, signal: AbortSignal): Promise<ModelMessage> {
      for (let attempt = 0; ; attempt++) {
        let streaming = false;
        try {
          const events = await client.messages.create({ ...request, stream: true }, { signal });
          streaming = true;
          return await accumulateMessage(events);
        } catch (error) {
          const mapped = streaming ? toStreamFailure(error, signal) : toTackleError(error, signal);
          if (!(streaming && mapped.retryable && attempt < maxRetries)) throw mapped;
          await sleep(backoffMs(attempt), signal);
        }
      }
    },
  };
}

/**
 * Decides on `error.status` (or, for an error event sent inside a 200 stream, on its `type`), never
 * on the message text.
 */
export function toTackleError(error: unknown, signal?: AbortSignal): TackleError {
  if (error instanceof TackleError) return error;
  if (signal?.aborted === true || error instanceof APIUserAbortError) {
    return new TackleError("aborted", "the model call was aborted", { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new TackleError("model_api", `could not reach the Anthropic API: ${error.message}`, {
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
    return new TackleError("model_api", `Anthropic API ${what}: ${error.apiMessage ?? error.message}`, {
      retryable,
      cause: error,
    });
  }
  return new TackleError("model_api", `model call failed: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

/**
 * A failure after the response started: an error event is judged by its type; anything else the
 * stream throws (a reset connection, a garbled event) cut the stream, which another attempt may get past.
 */
function toStreamFailure(error: unknown, signal: AbortSignal): TackleError {
  // The SDK ends the iteration quietly on an abort, which reads as a stream without message_stop.
  if (signal.aborted) return new TackleError("aborted", "the model call was aborted", { cause: error });
  if (error instanceof TackleError || error instanceof APIError || error instanceof APIUserAbortError) return toTackleError(error, signal);
  return new TackleError("model_api", `Anthropic stream cut: ${errorMessage(error)}`, { retryable: true, cause: error });
}

function backoffMs(attempt: number): number {
  const base = Math.min(8_000, 500 * 2 ** attempt);
  return base * (0.75 + Math.random() * 0.25);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new TackleError("aborted", "the model call was aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}
