import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { pinnedLookup } from "./pinned-lookup.js";

/** Agents of their own: no keep-alive (a reused socket could outlive its address check) and no environment proxy. */
export interface FetchAgents {
  http: http.Agent;
  https: https.Agent;
}

export function createFetchAgents(): FetchAgents {
  return { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) };
}

const HEADERS = {
  "user-agent": "Tackle-WebFetch/1",
  accept: "text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9, text/*;q=0.8, */*;q=0.1",
  "accept-encoding": "gzip, deflate, br",
};

/**
 * Sends one GET for `url` to `address`, the address the rules already checked: the lookup the
 * socket makes is answered with it, so no second DNS answer can steer the connection elsewhere,
 * while the Host header and TLS server name stay the URL's. Resolves once the headers arrive.
 */
export function openResponse(url: URL, address: string, agents: FetchAgents, signal: AbortSignal): Promise<IncomingMessage> {
  const lookup = pinnedLookup(address);
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, { method: "GET", agent: secure ? agents.https : agents.http, headers: HEADERS, lookup, signal }, resolve);
    request.on("error", reject);
    request.end();
  });
}
