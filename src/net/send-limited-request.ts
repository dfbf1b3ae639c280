import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { errorMessage, TackleError } from "../errors/index.js";
import type { HttpLimits, HttpRequestInit } from "./create-http-client.js";
import { createEventSizeMeter } from "./event-size-meter.js";
import { createJsonValueMeter } from "./json-value-meter.js";
import { HttpLimitError } from "./http-limit-error.js";
import { pinnedLookup } from "./pinned-lookup.js";

export interface LimitedRequest {
  url: URL;
  init: HttpRequestInit;
  limits: HttpLimits;
  /** The job's and the caller's: either ends the exchange. */
  signals: AbortSignal[];
  /** The checked address to connect to; `until` rejects once the exchange has ended (a deadline, a signal). */
  address(until: Promise<never>): Promise<string>;
}

/** Statuses whose response has no body. */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * One exchange, from the address check to the body's last byte, ended at the first of: the body's end,
 * a limit (HttpLimitError), a signal, a network error, or the reader cancelling the body. Whatever ends
 * it destroys the socket; the promise rejects with the reason, or the body errors with it once the
 * promise has resolved. Only this function opens a socket for a destination untrusted input chose.
 */
export function sendLimitedRequest(exchange: LimitedRequest): Promise<Response> {
  const { url, init, limits } = exchange;
  const where = `${url.origin}${url.pathname}`;
  let request: http.ClientRequest | undefined;
  let body: LimitedBody | undefined;
  let ended = false;
  let reject: (error: Error) => void = () => {};
  let stopWaiting: (error: Error) => void = () => {};
  const until = new Promise<never>((_resolve, fail) => {
    stopWaiting = fail;
  });
  until.catch(() => undefined);

  const end = (error?: Error): void => {
    if (ended) return;
    ended = true;
    clearTimeout(deadline);
    clearTimeout(idle);
    for (const signal of exchange.signals) signal.removeEventListener("abort", onAbort);
    if (error === undefined) {
      body?.close();
      return;
    }
    request?.destroy();
    stopWaiting(error);
    if (body === undefined) reject(error);
    else body.error(error);
    if (error instanceof HttpLimitError) init.onLimit?.(error);
  };
  const broke = (limit: keyof HttpLimits, what: string) => end(new HttpLimitError(limit, `${where}: ${what} (${limit}): the connection was closed`));
  const onAbort = () => end(new TackleError("aborted", `${where}: the request was cancelled`));
  const deadline =
    limits.deadlineMs === null
      ? undefined
      : setTimeout(() => broke("deadlineMs", `no complete response within ${seconds(limits.deadlineMs!)}`), limits.deadlineMs);
  const idle = setTimeout(() => broke("idleMs", `nothing received for ${seconds(limits.idleMs)}`), limits.idleMs);

  const receive = (response: IncomingMessage, resolve: (response: Response) => void): void => {
    idle.refresh();
    const status = response.statusCode ?? 0;
    const headers = headersOf(response);
    if (status < 200 || status > 599) {
      end(new TackleError("fetch_failed", `${where} answered with status ${status}`));
      return;
    }
    response.on("error", (error) => end(failure(where, error)));
    response.on("close", () => {
      if (!response.complete) end(new TackleError("fetch_failed", `${where}: the connection closed before the body ended`, { retryable: true }));
    });
    response.on("end", () => end());
    if (NULL_BODY.has(status) || init.method === "HEAD") {
      response.resume();
      resolve(new Response(null, { status, statusText: response.statusMessage ?? "", headers }));
      return;
    }
    const eventStream = isEventStream(headers.get("content-type"), new Headers(init.headers ?? {}).get("accept"));
    const meter = eventStream ? createEventSizeMeter() : undefined;
    const values = limits.maxJsonValues === null ? undefined : createJsonValueMeter(eventStream ? "event" : "body");
    let received = 0;
    const admit = (chunk: Buffer): boolean => {
      if (ended) return false;
      idle.refresh();
      received += chunk.length;
      if (received > limits.maxBytes) broke("maxBytes", `the response passed ${bytes(limits.maxBytes)}`);
      else if (meter !== undefined && meter.push(chunk) > limits.maxEventBytes) {
        broke("maxEventBytes", `an event of its event stream passed ${bytes(limits.maxEventBytes)} without ending`);
      } else if (values !== undefined && values.push(chunk) > limits.maxJsonValues!) {
        broke("maxJsonValues", `${eventStream ? "an event of its event stream" : "the response"} passed ${limits.maxJsonValues} JSON values`);
      }
      return !ended;
    };
    body = limitedBody(response, admit, () => end(new TackleError("aborted", `${where}: the reader cancelled the body`)));
    resolve(new Response(body.stream, { status, statusText: response.statusMessage ?? "", headers }));
  };

  return new Promise<Response>((resolve, fail) => {
    reject = fail;
    for (const signal of exchange.signals) {
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
    }
    exchange.address(until).then(
      (address) => {
        if (ended) return;
        request = open(url, address, init, (response) => {
          try {
            receive(response, resolve);
          } catch (error) {
            end(failure(where, error));
          }
        });
        request.on("error", (error) => end(failure(where, error)));
      },
      (error: unknown) => end(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

interface LimitedBody {
  stream: ReadableStream<Uint8Array>;
  close(): void;
  error(error: Error): void;
}

/**
 * The response's body as a web stream read only as fast as its reader takes it (the socket is paused
 * in between), each chunk let through only when `admit` says so. Once the reader cancels, it is told
 * nothing more.
 */
function limitedBody(response: IncomingMessage, admit: (chunk: Buffer) => boolean, onCancel: () => void): LimitedBody {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (started) => {
        controller = started;
      },
      pull: () => {
        response.resume();
      },
      cancel: () => {
        cancelled = true;
        onCancel();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  response.on("data", (chunk: Buffer) => {
    if (cancelled || !admit(chunk)) return;
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) response.pause();
  });
  return {
    stream,
    close: () => {
      if (!cancelled) controller.close();
    },
    error: (error) => {
      if (!cancelled) controller.error(error);
    },
  };
}

/** Sends the request to the checked address: the socket's lookup answers with it, while the Host header and TLS name stay the URL's. */
function open(url: URL, address: string, init: HttpRequestInit, onResponse: (response: IncomingMessage) => void): http.ClientRequest {
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  const request = client.request(
    url,
    {
      method: init.method ?? "GET",
      headers: Object.fromEntries(new Headers(init.headers ?? {}).entries()),
      lookup: pinnedLookup(address),
      // An agent of its own: no keep-alive (a reused socket could outlive its address check), no environment proxy.
      agent: secure ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false }),
    },
    onResponse,
  );
  const body = init.body;
  if (body === undefined || body === null) request.end();
  else if (typeof body === "string" || body instanceof Uint8Array) request.end(body);
  else request.destroy(new TackleError("fetch_failed", "a request body must be text or bytes"));
  return request;
}

const EVENT_STREAM = /^\s*text\/event-stream\s*(?:;|$)/i;

/**
 * A body read as an event stream: it says it is one, or the caller asked for nothing else (the MCP
 * SDK parses its GET stream as events whatever type the server names).
 */
function isEventStream(contentType: string | null, accept: string | null): boolean {
  return EVENT_STREAM.test(contentType ?? "") || EVENT_STREAM.test(accept ?? "");
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return headers;
}

function failure(where: string, error: unknown): Error {
  if (error instanceof TackleError) return error;
  return new TackleError("fetch_failed", `${where}: ${errorMessage(error)}`, { retryable: true, cause: error });
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

function bytes(count: number): string {
  if (count % (1024 * 1024) === 0) return `${count / (1024 * 1024)} MiB`;
  if (count % 1024 === 0) return `${count / 1024} KiB`;
  return `${count} bytes`;
}
