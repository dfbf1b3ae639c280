import { modelRetryDelayMs, waitToRetry } from "./model-retry.js";
import { errorMessage, TackleError } from "../errors/tackle-error.js";
import { maskUrl } from "../logging/mask-url.js";
import { createRedactor, cutMasked } from "../util/redact.js";
import { accumulateChatCompletion } from "./accumulate-chat-completion.js";
import { cappedModelFetch } from "./capped-model-fetch.js";
import type { MessageRequest, ModelClient, ModelMessage } from "./model-client.js";
import { readSseData } from "./read-sse-data.js";
import { toChatCompletionRequest } from "./to-chat-completion-request.js";

export interface OpenAIClientOptions {
  /** The server's base URL with its `/v1` (`http://localhost:8000/v1`); requests go to `{baseURL}/chat/completions`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer`. @defaultValue none: local servers often need no key */
  apiKey?: string;
  /**
   * Retries of 408/409/429/5xx, connection errors, silences and streams cut or failed part-way, with
   * exponential backoff (a `retry-after` or `retry-after-ms` header of up to a minute is honoured).
   * @defaultValue 4
   */
  maxRetries?: number;
  /** How long the server may send nothing (before the answer starts, or between chunks). @defaultValue 600000 (10 minutes) */
  idleTimeoutMs?: number;
}

/** Longer waits than this from `retry-after` fall back to our own backoff: the job's deadline matters more. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Any OpenAI-compatible chat-completions server (vLLM, Ollama, LiteLLM, OpenAI) through plain `fetch`,
 * always streaming. The loop's Anthropic-shaped request is mapped by toChatCompletionRequest and the
 * streamed chunks back by accumulateChatCompletion; failures become TackleErrors as the Anthropic
 * client's do: `model_api` with `retryable` from the HTTP status, or `aborted`. Requests go through
 * cappedModelFetch, the same cap on a response as every provider's.
 */
export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const maxRetries = options.maxRetries ?? 4;
  const target = openaiTarget(options.baseURL, "chat/completions", options.apiKey);
  const url = target.url;
  const where = maskUrl(options.baseURL);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream", ...target.headers };
  const idleMs = options.idleTimeoutMs ?? 600_000;
  const send = cappedModelFetch("OpenAI-compatible API");

  async function attempt(body: string, model: string, signal: AbortSignal): Promise<ModelMessage> {
    const idle = idleTimer(idleMs);
    const cut = AbortSignal.any([signal, idle.signal]);
    try {
      let response: Response;
      try {
        response = await send(url, { method: "POST", headers, body, signal: cut });
      } catch (error) {
        throw failure(error, signal, idle, `could not reach the OpenAI-compatible server at ${where}: ${causeOf(error)}`);
      }
      if (!response.ok) throw await httpError(response, options.apiKey);
      if (response.body === null) throw new TackleError("model_api", "the OpenAI-compatible server sent no body", { retryable: true });
      try {
        return await accumulateChatCompletion(readSseData(idle.watch(response.body)), model);
      } catch (error) {
        throw failure(error, signal, idle, `OpenAI-compatible stream cut: ${causeOf(error)}`);
      }
    } finally {
      idle.stop();
    }
  }

  return {
    name: "openai",
    async create(request: MessageRequest, signal: AbortSignal): Promise<ModelMessage> {
      const body = JSON.stringify(toChatCompletionRequest(request));
      for (let tries = 0; ; tries++) {
        try {
          return await attempt(body, request.model, signal);
        } catch (error) {
          const mapped = error instanceof TackleError ? error : failure(error, signal, undefined, `model call failed: ${errorMessage(error)}`);
          if (!mapped.retryable || tries >= maxRetries) throw mapped;
          await waitToRetry(retryDelayMs(error, tries), signal);
        }
      }
    },
  };
}

/**
 * `{base}/{path}` and its authorization: the API key as a bearer token. fetch refuses a URL with
 * credentials in it, so a base URL's `user:password@` (a proxy in front of the server) becomes a Basic
 * authorization instead, used when there is no API key.
 */
export function openaiTarget(baseURL: string, path: string, apiKey?: string): { url: string; headers: Record<string, string> } {
  const url = new URL(`${baseURL.replace(/\/+$/, "")}/${path}`);
  const user = url.username === "" && url.password === "" ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = "";
  url.password = "";
  if (apiKey) return { url: url.href, headers: { authorization: `Bearer ${apiKey}` } };
  return { url: url.href, headers: user === undefined ? {} : { authorization: `Basic ${Buffer.from(user).toString("base64")}` } };
}

/** An HTTP error answer, with the server's own words and whether another attempt may succeed. */
class HttpFailure extends TackleError {
  constructor(
    message: string,
    retryable: boolean,
    /** From `retry-after-ms` or `retry-after`, when the server sent one. */
    readonly retryAfterMs: number | undefined,
  ) {
    super("model_api", message, { retryable });
  }
}

async function httpError(response: Response, apiKey: string | undefined): Promise<HttpFailure> {
  const status = response.status;
  const text = await response.text().catch(() => "");
  const shouldRetry = response.headers.get("x-should-retry");
  const retryable = shouldRetry === "true" ? true : shouldRetry === "false" ? false : status === 408 || status === 409 || status === 429 || status >= 500;
  return new HttpFailure(`OpenAI-compatible API HTTP ${status}: ${errorText(text, apiKey)}`, retryable, retryAfterMs(response.headers));
}

/**
 * OpenAI and LiteLLM say `{error: {message}}`, older vLLM `{message}`, Ollama `{error: "…"}`. Any other
 * body is cut to 500 characters, masked first with the key the request carried: a proxy's page may
 * echo the request it refused, and a cut through the key would leave a piece no later mask finds.
 */
function errorText(text: string, apiKey: string | undefined): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === "string") return body.error;
    if (typeof body.error?.message === "string") return body.error.message;
    if (typeof body.message === "string") return body.message;
  } catch {
    // Not JSON: a proxy's HTML page, a plain-text error.
  }
  return cutMasked(createRedactor(apiKey ? [apiKey] : [])(text.trim()), 500, "the body was cut") || "(no body)";
}

function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * What a thrown error means: the caller's abort wins; our own silence timer is a retryable timeout;
 * a TackleError (a stream error, a broken stream) stands; anything else cut the connection.
 */
function failure(error: unknown, signal: AbortSignal, idle: IdleTimer | undefined, text: string): TackleError {
  if (signal.aborted) return new TackleError("aborted", "the model call was aborted", { cause: error });
  if (idle?.fired) {
    return new TackleError("model_api", `the OpenAI-compatible server sent nothing for ${Math.round(idle.ms / 1000)} s`, { retryable: true, cause: error });
  }
  if (error instanceof TackleError) return error;
  return new TackleError("model_api", text, { retryable: true, cause: error });
}

/** `fetch failed` says little: the reason (ECONNREFUSED, a reset) is in its cause. */
function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${errorMessage(error)}${cause}`;
}

interface IdleTimer {
  readonly signal: AbortSignal;
  readonly fired: boolean;
  readonly ms: number;
  /** The body, restarting the timer at every chunk. */
  watch(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array>;
  stop(): void;
}

/** Aborts when nothing arrives for `ms`: a long generation is fine, a silent server is not. */
function idleTimer(ms: number): IdleTimer {
  const controller = new AbortController();
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  const restart = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      fired = true;
      controller.abort(new Error(`no data for ${ms} ms`));
    }, ms);
  };
  restart();
  return {
    signal: controller.signal,
    get fired() {
      return fired;
    },
    ms,
    async *watch(body) {
      for await (const chunk of body) {
        restart();
        yield chunk;
      }
    },
    stop: () => clearTimeout(timer),
  };
}

function retryDelayMs(error: unknown, tries: number): number {
  const asked = error instanceof HttpFailure ? error.retryAfterMs : undefined;
  if (asked !== undefined && asked <= MAX_RETRY_AFTER_MS) return asked;
  return modelRetryDelayMs(tries);
}
