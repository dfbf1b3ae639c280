/**
 * What the fake GitHub received and answered, for assertions and transfer-size benchmarks, plus
 * a way to await a condition instead of sleeping.
 */
import { EventEmitter } from "node:events";

export interface RequestLogEntry {
  kind: "rest" | "git" | "other";
  method: string;
  /** URL path without the query string, e.g. `/api/v3/repos/o/r/issues/1/comments`. */
  path: string;
  query: Record<string, string>;
  /** Matched REST route in Octokit's notation, e.g. `POST /repos/{owner}/{repo}/issues/{issue_number}/comments`. */
  route?: string;
  status: number;
  /** Parsed JSON request body, when there was one. */
  body?: unknown;
  /** The token (or JWT) presented, and who it acts as. */
  token?: string;
  login?: string;
  /** Response body bytes (git pack data for fetches), and request body bytes. */
  bytesSent: number;
  bytesReceived: number;
  /** Set when failNext() produced the answer. */
  injected?: boolean;
  /** Epoch ms when the request arrived, and how long it took to answer. */
  at: number;
  durationMs: number;
}

export type RequestFilter =
  | ((entry: RequestLogEntry) => boolean)
  | { method?: string; path?: string | RegExp; route?: string; kind?: RequestLogEntry["kind"]; status?: number };

export function matchesFilter(entry: RequestLogEntry, filter: RequestFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (typeof filter === "function") return filter(entry);
  if (filter.method && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.kind && entry.kind !== filter.kind) return false;
  if (filter.status !== undefined && entry.status !== filter.status) return false;
  if (filter.route && entry.route !== filter.route) return false;
  if (typeof filter.path === "string" && entry.path !== filter.path) return false;
  if (filter.path instanceof RegExp && !filter.path.test(entry.path)) return false;
  return true;
}

export interface RequestLog {
  record(entry: RequestLogEntry): void;
  requests(filter?: RequestFilter): RequestLogEntry[];
  clear(): void;
  onRequest(listener: (entry: RequestLogEntry) => void): () => void;
  /**
   * Resolves with the first truthy value of `predicate`, re-checked after every request and on
   * a short poll (state may also change through seeding helpers). Rejects after `timeoutMs`.
   */
  waitFor<T>(predicate: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs?: number): Promise<T>;
  waitForRequest(filter: RequestFilter, timeoutMs?: number): Promise<RequestLogEntry>;
}

export function createRequestLog(): RequestLog {
  const entries: RequestLogEntry[] = [];
  const events = new EventEmitter();
  events.setMaxListeners(0);

  const waitFor: RequestLog["waitFor"] = (predicate, timeoutMs = 5000) =>
    new Promise((resolve, reject) => {
      let done = false;
      let checking = false;
      const finish = (error: Error | undefined, value?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        events.off("request", check);
        if (error) reject(error);
        else resolve(value as never);
      };
      const check = () => {
        if (done || checking) return;
        checking = true;
        Promise.resolve()
          .then(predicate)
          .then(
            (value) => {
              checking = false;
              if (value) finish(undefined, value);
            },
            (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
          );
      };
      const timer = setTimeout(() => finish(new Error(`waitFor: condition not met within ${timeoutMs} ms`)), timeoutMs);
      const poll = setInterval(check, 25);
      events.on("request", check);
      check();
    });

  return {
    record(entry) {
      entries.push(entry);
      events.emit("request", entry);
    },
    requests: (filter) => entries.filter((entry) => matchesFilter(entry, filter)),
    clear() {
      entries.length = 0;
    },
    onRequest(listener) {
      events.on("request", listener);
      return () => events.off("request", listener);
    },
    waitFor,
    waitForRequest(filter, timeoutMs = 5000) {
      // Requests already logged count too (the awaited call often lands before the test awaits it);
      // clear() first to wait for a fresh one.
      return waitFor(() => entries.find((entry) => matchesFilter(entry, filter)), timeoutMs);
    },
  };
}
