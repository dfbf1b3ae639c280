import { TackleError } from "../errors/index.js";

export interface RetryPolicy {
  /** Runs of a job at most, the first included. @defaultValue 3 */
  attempts: number;
  /** Delay before the first retry, before jitter; doubles each time. @defaultValue 5_000 */
  baseDelayMs: number;
  /** Upper bound of one delay. @defaultValue 300_000 */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 5_000, maxDelayMs: 300_000 };

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...overrides };
}

/**
 * Delay before retry number `retry` (1 = the first retry): exponential, capped, with "equal jitter"
 * (half fixed, half random) so jobs failing together do not retry together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Auth, permission and config errors (TackleErrors with `retryable: false`) fail at once; the rest retry. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof TackleError) return error.retryable;
  return true;
}

/** The abort reason of `/tackle stop`: final, never retried. */
export function stopReason(): TackleError {
  return new TackleError("aborted", "stopped on request");
}

/** The abort reason of a shutdown past its drain bound: the job may run again elsewhere. */
export function shutdownReason(): TackleError {
  return new TackleError("aborted", "the worker is shutting down", { retryable: true });
}

export function isShutdownReason(reason: unknown): boolean {
  return reason instanceof TackleError && reason.code === "aborted" && reason.retryable;
}
