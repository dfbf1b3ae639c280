import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { TackleError } from "../errors/index.js";
import type { HttpClient, HttpLimits } from "./create-http-client.js";
import { HttpLimitError } from "./http-limit-error.js";

/** The limits of a streamable HTTP server's two kinds of exchange. */
export interface McpHttpLimits {
  /** A POST (a request, a notification) and its answer, JSON or an event stream that ends with the response. */
  exchange: Partial<HttpLimits>;
  /** The GET stream a server may hold open for messages of its own: no total deadline, but a silence ends it (the SDK opens it again). */
  stream: Partial<HttpLimits>;
}

/**
 * Answers to the server's own requests (a `ping`, a method the client does not have) in flight at
 * once. The SDK answers each request of a server's stream with a POST as soon as it reads it, without
 * waiting for the last: 5,000 pings in 250 KB of events held 5,000 sockets open until their deadline
 * (8 MiB of them, 200,000, past the process's file limit). Past this the server is closed as one that
 * broke a limit.
 */
const MAX_ANSWERS_IN_FLIGHT = 8;

/**
 * GET streams opened to one server in a job. The SDK opens its stream again whenever the server ends
 * it, after the delay the server's `retry:` field names: `retry: 0` and an empty stream had it reconnect
 * 300 times a second, most of a core, for as long as the job ran. A quiet stream is reopened every 5
 * minutes; past this count the server is closed as one that broke a limit.
 */
const MAX_STREAMS = 100;

/** The fetch one server's SDK transport gets, and what it must be told. */
export interface McpHttpFetch {
  fetch: FetchLike;
  /** Every message the transport receives: an answer ends the watch over its request. */
  answered(message: JSONRPCMessage): void;
}

/**
 * The SDK's transport over the job's HTTP client, with MCP's limits for each exchange. The SDK gives
 * up on a request (its timeout, the caller's signal) by sending `notifications/cancelled` and leaves
 * the request's answer stream open: seeing that notification go out ends the exchange that carries
 * the request, socket included.
 */
export function createMcpHttpFetch(
  http: HttpClient,
  limits: McpHttpLimits,
  onLimit: (error: HttpLimitError) => void,
  /** The port's: aborted when it closes, ending every exchange still open. */
  closed: AbortSignal,
): McpHttpFetch {
  const inFlight = new Map<RequestId, AbortController>();
  let answering = 0;
  let streams = 0;
  return {
    fetch: (url, init = {}) => {
      const method = (init.method ?? "GET").toUpperCase();
      if (method === "GET" && ++streams > MAX_STREAMS) {
        const error = new HttpLimitError("streamsOpened", `${new URL(String(url)).origin}: its event stream was opened ${MAX_STREAMS} times (streamsOpened)`);
        onLimit(error);
        return Promise.reject(error);
      }
      const sent = parseMessages(init.body);
      // Only answers: what the server asked for, not what the client did.
      const answers = sent.length > 0 && sent.every((message) => isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message));
      if (answers && answering >= MAX_ANSWERS_IN_FLIGHT) {
        const error = new HttpLimitError(
          "answersInFlight",
          `${new URL(String(url)).origin}: it asked more than ${MAX_ANSWERS_IN_FLIGHT} things at once (answersInFlight): its request was not answered`,
        );
        onLimit(error);
        return Promise.reject(error);
      }
      for (const message of sent) {
        if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") continue;
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id === undefined) continue;
        inFlight.get(id)?.abort(new TackleError("aborted", "the MCP client gave up on the request"));
        inFlight.delete(id);
      }
      const requests = sent.filter(isJSONRPCRequest);
      const own = requests.length > 0 ? new AbortController() : undefined;
      for (const request of requests) inFlight.set(request.id, own!);
      const signals = [init.signal ?? undefined, own?.signal, closed].filter((signal) => signal !== undefined);
      const exchange = http.fetch(url, {
        ...init,
        signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals),
        limits: method === "GET" ? limits.stream : limits.exchange,
        onLimit,
      });
      if (!answers) return exchange;
      // Counted until the answer's exchange is over, its body included.
      answering += 1;
      let done = false;
      const finish = () => {
        if (!done) answering -= 1;
        done = true;
      };
      return exchange.then(
        (response) => settled(response, finish),
        (error: unknown) => {
          finish();
          throw error;
        },
      );
    },
    answered(message) {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) inFlight.delete(message.id as RequestId);
    },
  };
}

/** The JSON-RPC messages of a POST body (one, or a batch); none for anything else. */
function parseMessages(body: RequestInit["body"]): JSONRPCMessage[] {
  if (typeof body !== "string") return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]) as JSONRPCMessage[];
  } catch {
    return [];
  }
}

/**
 * The response, with `finish` called once its body is over: read to its end, errored or cancelled
 * (the SDK cancels the body of an answer's 202). A response without a body is over at once.
 */
function settled(response: Response, finish: () => void): Response {
  if (response.body === null) {
    finish();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
