import http from "node:http";
import { handleHealth } from "./health.js";
import { serveMetrics, type MetricsEndpoint } from "./serve-metrics.js";

export interface HealthServerOptions {
  /** 0 picks a free port (the bound one is in `HealthServer.port`). */
  port: number;
  /** The address to bind. @defaultValue every interface, as Node's `listen` does */
  host?: string | undefined;
  /** For `/readyz`: whether the process can do its work now (Redis answers). */
  ready: () => Promise<boolean>;
  /** `/metrics` (Prometheus). @defaultValue none: 404 */
  metrics?: MetricsEndpoint;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A port serving only `/healthz`, `/readyz` and `/metrics` (404 for anything else), with the server's
 * semantics: `tackle worker --port N`. Fails with the reason when the port cannot be bound.
 */
export async function listenHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    if (handleHealth(req, res, { ready: options.ready })) return;
    if (options.metrics && serveMetrics(req, res, options.metrics)) return;
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const where = options.host ? `${options.host}:${options.port}` : `port ${options.port}`;
      const why = error.code === "EADDRINUSE" ? "it is already in use" : error.code === "EACCES" ? "permission denied" : error.message;
      reject(new Error(`cannot serve health checks on ${where}: ${why}`, { cause: error }));
    });
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
