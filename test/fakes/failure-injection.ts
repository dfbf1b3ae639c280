/**
 * Scripted failures for the fake GitHub, answered the way GitHub answers them so that Octokit's
 * retry and throttling plugins recognise them (they decide on status and headers).
 */
import { STATUS_CODES } from "node:http";
import { DOCS_URL } from "./fake-github-http.js";

export interface FailureRule {
  /** How many matching requests fail. @defaultValue 1 */
  count?: number;
  /** @defaultValue 403 when secondaryRateLimit, else 500 */
  status?: number;
  match?: { method?: string; pathRegex?: RegExp; kind?: "rest" | "git" };
  /** GitHub's abuse limit: 403 (or the given status) with retry-after and a "secondary rate limit" message. */
  secondaryRateLimit?: boolean;
  /** Primary limit exhausted: x-ratelimit-remaining 0. Implied by status 429 without secondaryRateLimit. */
  primaryRateLimit?: boolean;
  /** Seconds, sent as `retry-after` (secondary) or used for `x-ratelimit-reset` (primary). */
  retryAfter?: number;
  /** Replaces the JSON body. */
  body?: unknown;
}

export interface FailureResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export const SECONDARY_RATE_LIMIT_MESSAGE = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";

export interface FailureInjector {
  failNext(rule: FailureRule): void;
  /** Consumes one use of the first rule matching this request. */
  take(request: { method: string; path: string; kind: "rest" | "git" | "other" }): FailureResponse | undefined;
  clear(): void;
  pending(): number;
}

export function createFailureInjector(): FailureInjector {
  const rules: Array<{ rule: FailureRule; remaining: number }> = [];
  return {
    failNext(rule) {
      rules.push({ rule, remaining: rule.count ?? 1 });
    },
    take(request) {
      const slot = rules.find(({ rule, remaining }) => {
        if (remaining <= 0) return false;
        const match = rule.match ?? {};
        if (match.method && match.method.toUpperCase() !== request.method) return false;
        if (match.kind && match.kind !== request.kind) return false;
        return !match.pathRegex || match.pathRegex.test(request.path);
      });
      if (!slot) return undefined;
      slot.remaining -= 1;
      return failureResponse(slot.rule);
    },
    clear() {
      rules.length = 0;
    },
    pending: () => rules.reduce((sum, slot) => sum + slot.remaining, 0),
  };
}

export function failureResponse(rule: FailureRule): FailureResponse {
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (rule.secondaryRateLimit) {
    const status = rule.status ?? 403;
    return {
      status,
      headers: { "retry-after": String(rule.retryAfter ?? 60) },
      body: rule.body ?? {
        message: SECONDARY_RATE_LIMIT_MESSAGE,
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
        status: String(status),
      },
    };
  }
  const status = rule.status ?? 500;
  if (rule.primaryRateLimit || status === 429) {
    return {
      status,
      headers: {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-used": "5000",
        "x-ratelimit-reset": String(nowSeconds + (rule.retryAfter ?? 60)),
        "x-ratelimit-resource": "core",
      },
      body: rule.body ?? {
        message: "API rate limit exceeded for installation.",
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit",
        status: String(status),
      },
    };
  }
  return {
    status,
    headers: {},
    body: rule.body ?? { message: STATUS_CODES[status] ?? "Error", documentation_url: DOCS_URL, status: String(status) },
  };
}
