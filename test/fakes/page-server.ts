import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A web server on 127.0.0.1 answering each path with its HTML page (an empty page for any other). */
export interface PageServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The TACKLE_FETCH_ALLOW entry that lets WebFetch reach it: `127.0.0.1:<port>`. */
  pattern: string;
  close(): void;
}

export async function startPageServer(pages: Readonly<Record<string, string>>): Promise<PageServer> {
  const server = http.createServer((request, response) => {
    const body = pages[new URL(request.url ?? "/", "http://x").pathname] ?? "";
    response.writeHead(200, { "content-type": "text/html" }).end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, pattern: `127.0.0.1:${port}`, close: () => server.close() };
}
