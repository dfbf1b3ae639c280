/**
 * Every error Tackle raises on purpose. `code` is stable and machine-readable; `retryable` tells
 * the job engine whether another attempt could succeed (the worker maps non-retryable ones to
 * BullMQ's UnrecoverableError).
 */
export type TackleErrorCode =
  | "config_invalid"
  | "env_invalid"
  | "permission_denied"
  | "auth_failed"
  | "github_api"
  | "model_api"
  | "model_misbehaved"
  | "replay_exhausted"
  | "workspace"
  | "git"
  | "sandbox_unavailable"
  | "path_outside_worktree"
  | "policy_denied"
  | "push_refused"
  | "budget_exhausted"
  | "aborted"
  | "payload_invalid"
  | "not_found"
  | "queue_unavailable"
  /** A tool's input the host refuses (a bad memory name, oversized content): the message says how to fix it. */
  | "invalid_input"
  /** The repository's durable memory is at its limit of entries. */
  | "memory_full"
  /** An MCP server could not be reached, or failed a call. */
  | "mcp_failed"
  /** WebFetch: a scheme or destination the allow-lists or the address rules refuse (the message says which rule). */
  | "fetch_refused"
  /** WebFetch: a network error, a timeout, or a body that cannot be read as text. */
  | "fetch_failed"
  /** An outbound response broke a limit of the HTTP client (bytes, deadline, silence, event-stream event): the message names it. */
  | "fetch_limit";

export class TackleError extends Error {
  readonly code: TackleErrorCode;
  readonly retryable: boolean;

  constructor(code: TackleErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TackleError";
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

export function isTackleError(error: unknown, code?: TackleErrorCode): error is TackleError {
  return error instanceof TackleError && (code === undefined || error.code === code);
}

/** The message of anything thrown, for logs and tool results. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
