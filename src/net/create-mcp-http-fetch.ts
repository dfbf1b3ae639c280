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
import type { HttpLimitError } from "./http-limit-error.js";

/** The limits of a streamable HTTP server's two kinds of exchange. */
export interface McpHttpLimits {
  /** A POST (a request, a notification) and its answer, JSON or an event stream that ends with the response. */
  exchange: Partial<HttpLimits>;
  /** The GET stream a server may hold open for messages of its own: no total deadline, but a silence ends it (the SDK opens it again). */
  stream: Partial<HttpLimits>;
}

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
  return {
    fetch: (url, init = {}) => {
      const sent = parseMessages(init.body);
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
      const method = (init.method ?? "GET").toUpperCase();
      return http.fetch(url, {
        ...init,
        signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals),
        limits: method === "GET" ? limits.stream : limits.exchange,
        onLimit,
      });
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
