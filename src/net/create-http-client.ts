import { errorMessage, TackleError } from "../errors/index.js";
import type { DestinationRules } from "./create-destination-rules.js";
import type { HttpLimitError } from "./http-limit-error.js";
import { resolveHost } from "./resolve-host.js";
import { sendLimitedRequest } from "./send-limited-request.js";

/**
 * What one outbound exchange may take. Each one bounds it, so a server cannot make the process hold
 * more than `maxBytes` of its answer, or hold a socket open past the deadline or a silence.
 */
export interface HttpLimits {
  /** Body bytes, counted off the socket before any decoding: one more errors the body and destroys the socket. @defaultValue 8 MiB */
  maxBytes: number;
  /**
   * From the call to the body's last byte (the address check, the headers and the body): past it the
   * socket is destroyed. null: none, for a long-lived stream, which `idleMs` and `maxBytes` still bound.
   * @defaultValue 120 000
   */
  deadlineMs: number | null;
  /** Longest silence: until the headers, and between two chunks of the body. @defaultValue 60 000 */
  idleMs: number;
  /**
   * Longest event of an event-stream body (its lines up to the blank line that ends it): one whose
   * Content-Type is `text/event-stream`, or asked for with `Accept: text/event-stream` alone. An SSE
   * parser holds an unfinished event whole, so a `data:` line that never ends errors here. @defaultValue 1 MiB
   */
  maxEventBytes: number;
  /**
   * JSON values a body may hold (see createJsonValueMeter): in an event stream, per event. The byte
   * budget does not bound what parsing builds (8 MiB of `{},` is 170 MB of objects), so a client whose
   * caller parses the body sets it. null: not counted (WebFetch reads text). @defaultValue null
   */
  maxJsonValues: number | null;
}

export const MiB = 1024 * 1024;

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = { maxBytes: 8 * MiB, deadlineMs: 120_000, idleMs: 60_000, maxEventBytes: MiB, maxJsonValues: null };

/** A fetch's init, plus this request's own limits. */
export interface HttpRequestInit extends RequestInit {
  /** Over the client's, for this request only. @defaultValue the client's */
  limits?: Partial<HttpLimits>;
  /** Told when a limit ended this exchange; the body (or the call) fails with the same error, and the socket is already destroyed. */
  onLimit?: (error: HttpLimitError) => void;
}

declare const limited: unique symbol;

/**
 * The one way Tackle's host sends a request to a destination that untrusted input chose (WebFetch, a
 * repository's HTTP MCP servers). Only createHttpClient makes one, so a caller that needs it cannot be
 * handed a plain fetch instead.
 */
export interface HttpClient {
  readonly [limited]: true;
  /**
   * Like fetch, under the destination rules and the limits: the URL and every address its host
   * resolves to are checked, the socket goes to the address checked (no proxy, no reused socket),
   * redirects are returned, not followed. Rejects with fetch_refused (a rule), fetch_failed (the
   * network), fetch_limit (a limit, as HttpLimitError) or aborted (a signal); the body errors the same way.
   */
  fetch(url: string | URL, init?: HttpRequestInit): Promise<Response>;
}

export interface HttpClientOptions {
  /** The operator's and the repository's allow-lists. */
  rules: DestinationRules;
  /** The job's signal: when it aborts, every exchange of this client ends and its socket is destroyed. @defaultValue none */
  signal?: AbortSignal;
  /** @defaultValue DEFAULT_HTTP_LIMITS */
  limits?: Partial<HttpLimits>;
  /** Every address of a host name. @defaultValue the system resolver (dns.lookup, all addresses) */
  resolve?: (host: string) => Promise<string[]>;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const resolve = options.resolve ?? resolveHost;
  const client = {
    fetch(input: string | URL, init: HttpRequestInit = {}): Promise<Response> {
      const url = new URL(String(input));
      const signals = [options.signal, init.signal ?? undefined].filter((signal) => signal !== undefined);
      return sendLimitedRequest({
        url,
        init,
        limits: { ...base, ...init.limits },
        signals,
        address: (until) => checkedAddress(url, options.rules, resolve, until),
      });
    },
  };
  return client as unknown as HttpClient;
}

/** The address to connect to, after the URL and every address of its host passed the rules. */
async function checkedAddress(url: URL, rules: DestinationRules, resolve: (host: string) => Promise<string[]>, until: Promise<never>): Promise<string> {
  const destination = rules.checkUrl(url);
  if (destination.literal) {
    rules.checkAddress(destination, destination.host);
    return destination.host;
  }
  let addresses: string[];
  try {
    // The system resolver takes no signal: the exchange stops waiting for it instead.
    addresses = await Promise.race([resolve(destination.host), until]);
  } catch (error) {
    if (error instanceof TackleError) throw error;
    throw new TackleError("fetch_failed", `cannot resolve ${destination.host}: ${errorMessage(error)}`, { retryable: true, cause: error });
  }
  if (addresses.length === 0) throw new TackleError("fetch_failed", `${destination.host} has no address`);
  for (const address of addresses) rules.checkAddress(destination, address);
  return addresses[0]!;
}
