import type { WebPage, WebPort } from "../agent/ports.js";
import { errorMessage, isTackleError, TackleError } from "../errors/index.js";
import { createDestinationRules } from "./create-destination-rules.js";
import { createHttpClient, type HttpClient, MiB } from "./create-http-client.js";
import { createWebFetchCache, type WebFetchCache } from "./create-web-fetch-cache.js";
import { isHttpLimitError } from "./http-limit-error.js";
import { type PageLimits, readPage } from "./read-page.js";

export interface WebFetcherOptions {
  /** The operator's TACKLE_FETCH_ALLOW as `loadEnv` gives it: null when unset (any public host), `[]` when off. */
  allow: readonly string[] | null;
  /** The repository's `web_fetch.allow`: narrows `allow`, never widens it; `[]` turns WebFetch off. @defaultValue no narrowing */
  repoAllow?: readonly string[] | undefined;
  /** For the whole fetch, redirects included. @defaultValue 30 000 */
  timeoutMs?: number;
  /** Body bytes read; the rest is left unread and the page reported truncated. @defaultValue 5 MB */
  maxBytes?: number;
  /** Characters of text returned. @defaultValue 100 000 */
  maxChars?: number;
  /** Milliseconds, for the cache's 15 minutes. @defaultValue Date.now */
  clock?: () => number;
  /** Every address of a host name. @defaultValue the system resolver (dns.lookup, all addresses) */
  resolve?: (host: string) => Promise<string[]>;
  /** Share one between the fetchers of a process; keys include both allow-lists. @defaultValue a cache of this fetcher's own */
  cache?: WebFetchCache;
  /** The job's signal: when it aborts, a fetch in flight ends and its socket is destroyed. @defaultValue none (each fetch's own signal still counts) */
  signal?: AbortSignal;
}

/** Redirects followed; one more is refused. */
const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const HEADERS = {
  "user-agent": "Tackle-WebFetch/1",
  accept: "text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9, text/*;q=0.8, */*;q=0.1",
  "accept-encoding": "gzip, deflate, br",
};

/**
 * Bytes off the socket past maxBytes (which counts decoded bytes): room for a compressed body's
 * overhead and read-ahead, so the page is cut at maxBytes first; a body that is all overhead (empty
 * gzip members without end) breaks the client's budget instead.
 */
const WIRE_SLACK = MiB;

/**
 * The host side of WebFetch, for one job's allow-lists. Every hop (the first URL and each redirect)
 * passes the same checks: http(s) only, both allow-lists, and every address the host resolves to
 * public unless the operator named that exact ip:port; the connection goes to the address checked.
 * Successful (2xx) pages are cached for 15 minutes. Throws config_invalid for a bad pattern.
 */
export function createWebFetcher(options: WebFetcherOptions): WebPort {
  const rules = createDestinationRules(options.allow, options.repoAllow);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const limits: PageLimits = { maxBytes: options.maxBytes ?? 5 * 1024 * 1024, maxChars: options.maxChars ?? 100_000 };
  const clock = options.clock ?? Date.now;
  const cache = options.cache ?? createWebFetchCache();
  const http = createHttpClient({
    rules,
    ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    limits: { maxBytes: limits.maxBytes + WIRE_SLACK, deadlineMs: timeoutMs, idleMs: timeoutMs },
  });

  return {
    async fetch(text, signal) {
      const url = parseUrl(text);
      rules.checkUrl(url);
      const key = `${rules.key} ${url.href}`;
      const hit = cache.get(key, clock());
      if (hit !== undefined) return { ...hit, cached: true };
      if (signal.aborted) throw cancelled();
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
      let page: WebPage;
      try {
        page = await follow(url, http, limits, deadline);
      } catch (error) {
        if (signal.aborted || options.signal?.aborted) throw cancelled();
        if (deadline.aborted || isHttpLimitError(error, "deadlineMs") || isHttpLimitError(error, "idleMs"))
          throw new TackleError("fetch_failed", `${url.href}: no complete answer within ${timeoutMs / 1000} s`, { retryable: true });
        if (isTackleError(error)) throw error;
        throw new TackleError("fetch_failed", `${url.href}: ${errorMessage(error)}`, { retryable: true, cause: error });
      }
      if (page.status >= 200 && page.status < 300) cache.set(key, page, clock());
      return page;
    },
  };
}

async function follow(first: URL, http: HttpClient, limits: PageLimits, signal: AbortSignal): Promise<WebPage> {
  let url = first;
  for (let redirects = 0; ; redirects += 1) {
    const response = await http.fetch(url, { headers: HEADERS, signal });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return readPage(url, response, limits);
    await response.body?.cancel();
    const next = parseUrl(location, url);
    if (redirects === MAX_REDIRECTS) {
      throw new TackleError("fetch_refused", `${first.href}: more than ${MAX_REDIRECTS} redirects (the next one went to ${next.href})`);
    }
    url = next;
  }
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    const shown = JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
    throw new TackleError("fetch_refused", base === undefined ? `${shown} is not an absolute URL` : `${base.href} redirects to ${shown}, not a URL`);
  }
}

function cancelled(): TackleError {
  return new TackleError("aborted", "the fetch was cancelled");
}
