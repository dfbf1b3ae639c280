import { APIConnectionError, APIConnectionTimeoutError } from "@anthropic-ai/sdk";
import { isTackleError } from "../errors/tackle-error.js";

/**
 * What kind of failure a model call ended in, for the operator's metrics: a few fixed words, never
 * the provider's message. `rate_limited` (429), `overloaded` (529), `timeout` (408, or the client's
 * own), `server` (other 5xx), `auth` (401, 403), `request` (other 4xx), `connection` (not reached),
 * `stream` (the response was cut or sent an error event of another type), `replay` (a replayed run
 * ran out of responses), `other`.
 */
export type ModelErrorKind = "rate_limited" | "overloaded" | "timeout" | "server" | "auth" | "request" | "connection" | "stream" | "replay" | "other";

/** Stream error events (inside a 200 response) by their `type`. */
const STREAM_ERROR_KINDS: Readonly<Record<string, ModelErrorKind>> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate_limited",
  api_error: "server",
  timeout_error: "timeout",
};

/**
 * Decides on the structure of what a model client threw (the HTTP status or the stream event's type
 * on its cause, the SDK's error classes), never on message text. Null for an abort: a stopped job is
 * not a model failure.
 */
export function modelErrorKind(error: unknown): ModelErrorKind | null {
  if (isTackleError(error, "aborted")) return null;
  if (isTackleError(error, "replay_exhausted")) return "replay";
  const cause = isTackleError(error) ? error.cause : error;
  if (cause instanceof APIConnectionTimeoutError) return "timeout";
  if (cause instanceof APIConnectionError) return "connection";
  const status = numberField(cause, "status");
  if (status !== undefined) return statusKind(status);
  const type = stringField(cause, "type");
  if (type !== undefined) return STREAM_ERROR_KINDS[type] ?? "stream";
  // A model_api error without a status or an event type: the stream was cut mid-response.
  if (isTackleError(error, "model_api") && cause !== undefined) return "stream";
  return "other";
}

function statusKind(status: number): ModelErrorKind {
  if (status === 429) return "rate_limited";
  if (status === 529) return "overloaded";
  if (status === 408) return "timeout";
  if (status >= 500) return "server";
  if (status === 401 || status === 403) return "auth";
  return "request";
}

function numberField(value: unknown, key: string): number | undefined {
  const field = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === "number" ? field : undefined;
}

function stringField(value: unknown, key: string): string | undefined {
  const field = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === "string" ? field : undefined;
}
