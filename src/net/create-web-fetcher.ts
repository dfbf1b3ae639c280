import type { WebPage, WebPort } from "../agent/ports.js";
import { errorMessage, isTackleError, TackleError } from "../errors/index.js";
import { createDestinationRules, type Destination, type DestinationRules } from "./create-destination-rules.js";
import { createWebFetchCache, type WebFetchCache } from "./create-web-fetch-cache.js";
import { createFetchAgents, type FetchAgents, openResponse } from "./open-response.js";
import { type PageLimits, readPage } from "./read-page.js";
import { resolveHost } from "./resolve-host.js";

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
}

/** Redirects followed; one more is refused. */
const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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
  const hop: Hop = { rules, resolve: options.resolve ?? resolveHost, agents: createFetchAgents(), limits };

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
        page = await follow(url, hop, deadline);
      } catch (error) {
        if (signal.aborted) throw cancelled();
        if (deadline.aborted) throw new TackleError("fetch_failed", `${url.href}: no complete answer within ${timeoutMs / 1000} s`, { retryable: true });
        if (isTackleError(error)) throw error;
        throw new TackleError("fetch_failed", `${url.href}: ${errorMessage(error)}`, { retryable: true, cause: error });
      }
      if (page.status >= 200 && page.status < 300) cache.set(key, page, clock());
      return page;
    },
  };
}

interface Hop {
  rules: DestinationRules;
  resolve: (host: string) => Promise<string[]>;
  agents: FetchAgents;
  limits: PageLimits;
}

async function follow(first: URL, hop: Hop, signal: AbortSignal): Promise<WebPage> {
  let url = first;
  for (let redirects = 0; ; redirects += 1) {
    const destination = hop.rules.checkUrl(url);
    const address = await checkedAddress(destination, hop, signal);
    const response = await openResponse(url, address, hop.agents, signal);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) return readPage(url, response, hop.limits);
    response.destroy();
    const next = parseUrl(location, url);
    if (redirects === MAX_REDIRECTS) {
      throw new TackleError("fetch_refused", `${first.href}: more than ${MAX_REDIRECTS} redirects (the next one went to ${next.href})`);
    }
    url = next;
  }
}

/** The address to connect to, after every address of the host passed the rules. */
async function checkedAddress(destination: Destination, hop: Hop, signal: AbortSignal): Promise<string> {
  if (destination.literal) {
    hop.rules.checkAddress(destination, destination.host);
    return destination.host;
  }
  let addresses: string[];
  try {
    addresses = await untilAborted(hop.resolve(destination.host), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new TackleError("fetch_failed", `cannot resolve ${destination.host}: ${errorMessage(error)}`, { retryable: true, cause: error });
  }
  if (addresses.length === 0) throw new TackleError("fetch_failed", `${destination.host} has no address`);
  for (const address of addresses) hop.rules.checkAddress(destination, address);
  return addresses[0]!;
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    const shown = JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
    throw new TackleError("fetch_refused", base === undefined ? `${shown} is not an absolute URL` : `${base.href} redirects to ${shown}, not a URL`);
  }
}

/** The system resolver takes no signal: stop waiting for it instead. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function cancelled(): TackleError {
  return new TackleError("aborted", "the fetch was cancelled");
}
