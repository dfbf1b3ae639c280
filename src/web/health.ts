import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * `/healthz` answers 200 once the server accepts webhooks; `/readyz` also asks `ready()` (Redis
 * reachable when one is configured). Returns whether the request was handled.
 */
export function handleHealth(req: IncomingMessage, res: ServerResponse, checks: { ready: () => Promise<boolean> }): boolean {
  const url = req.url?.split("?")[0];
  if (req.method !== "GET" || (url !== "/healthz" && url !== "/readyz")) return false;
  if (url === "/healthz") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" }));
    return true;
  }
  checks.ready().then(
    (ok) => {
      res.writeHead(ok ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify({ status: ok ? "ready" : "not ready" }));
    },
    () => {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ status: "not ready" }));
    },
  );
  return true;
}
