import { describe, expect, it } from "vitest";
import { TackleError } from "../../../src/errors/index.js";
import { backoffDelay, isRetryable, isShutdownReason, retryPolicy } from "../../../src/jobs/retry-policy.js";

describe("retry policy", () => {
  const policy = retryPolicy({ baseDelayMs: 1_000, maxDelayMs: 10_000 });

  it("doubles the delay per retry, with equal jitter, up to the cap", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, () => 0))).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(backoffDelay(1, policy, () => 0.5)).toBe(750);
  });

  it("defaults to three attempts", () => {
    expect(retryPolicy().attempts).toBe(3);
  });

  it("retries unknown errors and retryable TackleErrors, not auth, permission or config ones", () => {
    expect(isRetryable(new Error("socket hang up"))).toBe(true);
    expect(isRetryable(new TackleError("github_api", "502", { retryable: true }))).toBe(true);
    for (const code of ["auth_failed", "permission_denied", "config_invalid"] as const) {
      expect(isRetryable(new TackleError(code, "no"))).toBe(false);
    }
  });

  it("tells a shutdown abort from a stop", () => {
    expect(isShutdownReason(new TackleError("aborted", "shutting down", { retryable: true }))).toBe(true);
    expect(isShutdownReason(new TackleError("aborted", "stopped on request"))).toBe(false);
    expect(isShutdownReason(new Error("x"))).toBe(false);
  });
});
