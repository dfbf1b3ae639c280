import http from "node:http";
import https from "node:https";
import { pinnedLookup } from "./pinned-lookup.js";
import { Readable } from "node:stream";
import { TackleError } from "../errors/index.js";
import type { DestinationRules } from "./create-destination-rules.js";
import { resolveHost } from "./resolve-host.js";

/** The fetch the MCP SDK's HTTP transport takes. */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch for the host's own requests to a repository's HTTP MCP server, under WebFetch's rules: the
 * URL must pass both allow-lists, every address its host resolves to must be public (or the operator's
 * exact ip:port), and the connection goes to the address checked, with no proxy and no reused socket.
 * Redirects are not followed (the response is returned as is).
 */
export function createGuardedFetch(rules: DestinationRules, resolve: (host: string) => Promise<string[]> = resolveHost): GuardedFetch {
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const destination = rules.checkUrl(url);
    const addresses = destination.literal ? [destination.host] : await resolve(destination.host);
    if (addresses.length === 0) throw new TackleError("fetch_failed", `${destination.host} has no address`);
    for (const address of addresses) rules.checkAddress(destination, address);
    return send(url, addresses[0]!, init);
  };
}

function send(url: URL, address: string, init: RequestInit): Promise<Response> {
  const lookup = pinnedLookup(address);
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: init.method ?? "GET",
        headers,
        lookup,
        agent: secure ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false }),
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 502;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
        }
        const body = status === 204 || status === 304 || init.method === "HEAD" ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, statusText: response.statusMessage ?? "", headers: responseHeaders }));
      },
    );
    request.on("error", reject);
    const body = init.body;
    if (body === undefined || body === null) request.end();
    else if (typeof body === "string" || body instanceof Uint8Array) request.end(body);
    else reject(new TackleError("fetch_failed", "an MCP request body must be text or bytes"));
  });
}
