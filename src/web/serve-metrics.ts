import { equalSecrets } from "../util/equal-secrets.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../logging/logger.js";
import type { TackleMetrics } from "./create-metrics.js";

export interface MetricsEndpoint {
  metrics: TackleMetrics;
  /** TACKLE_METRICS_TOKEN: when set, a scrape needs `Authorization: Bearer <token>`. @defaultValue null: open */
  token: string | null;
  /** Where a failed scrape is logged (never with the token). */
  logger: Logger;
}

/**
 * `GET /metrics`: Prometheus's text format. With a token, anything but the exact bearer token gets
 * 401 (compared in constant time, over digests so the length leaks nothing either). Returns whether
 * the request was handled.
 */
export function serveMetrics(req: IncomingMessage, res: ServerResponse, endpoint: MetricsEndpoint): boolean {
  if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") return false;
  if (endpoint.token !== null && !hasBearer(req.headers.authorization, endpoint.token)) {
    res
      .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="tackle metrics"' })
      .end(JSON.stringify({ message: "a bearer token is required" }));
    return true;
  }
  endpoint.metrics.exposition().then(
    ({ contentType, body }) => {
      res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(body);
    },
    (error: unknown) => {
      endpoint.logger.warn({ err: error }, "could not collect the metrics");
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ message: "could not collect the metrics" }));
    },
  );
  return true;
}

/** Whether `header` is `Bearer <token>` (the scheme in any case, as RFC 7235 allows). */
function hasBearer(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  const given = match?.[1] ?? "";
  return equalSecrets(given, token) && match !== null;
}
