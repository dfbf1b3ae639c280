/**
 * A streamable-HTTP MCP server on 127.0.0.1 that answers `initialize` as a server should and hands
 * every other request (tools/list, tools/call) to the test's handler, which may answer with a body
 * that never ends. `pour` writes such a body and reports, as events rather than times, how many bytes
 * the server got onto the socket before the client closed it.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: number | string;
  method: string;
  params?: Record<string, unknown>;
}

export type HostileHandler = (message: JsonRpcRequest, response: http.ServerResponse) => void;

export interface HostileMcpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** `127.0.0.1:<port>`, for TACKLE_FETCH_ALLOW. */
  address: string;
  /** Every JSON-RPC message posted, requests and notifications, in order. */
  received: Array<{ method?: string; id?: unknown; params?: unknown }>;
  close(): Promise<void>;
}

export interface HostileOptions {
  /** The GET stream a server may hold open for its own messages. @defaultValue 405, none offered */
  onGet?: (response: http.ServerResponse) => void;
  /** Answers `initialize` instead of the server's proper answer. */
  onInitialize?: HostileHandler;
}

export async function startHostileMcpServer(handler: HostileHandler, { onGet, onInitialize }: HostileOptions = {}): Promise<HostileMcpServer> {
  const received: HostileMcpServer["received"] = [];
  const server = http.createServer(async (request, response) => {
    if (request.method === "GET" && onGet !== undefined) {
      onGet(response);
      return;
    }
    if (request.method !== "POST") {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as JsonRpcRequest;
    received.push({ method: message.method, id: message.id, params: message.params });
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    if (message.method === "initialize" && onInitialize !== undefined) {
      onInitialize(message, response);
      return;
    }
    if (message.method === "initialize") {
      const result = { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      return;
    }
    handler(message, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    address: `127.0.0.1:${port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** How an endless body ended: the client closed the connection, or the server gave up at its ceiling. */
export interface Poured {
  /** Bytes the socket took (written and flushed past Node's buffer) before the end. */
  written: number;
  closedByClient: boolean;
}

/**
 * Writes `chunk` again and again, as fast as the client reads, until the client closes the connection
 * or `ceiling` bytes are written (then the server closes it: a client without limits would read forever).
 */
export function pour(response: http.ServerResponse, chunk: Buffer, ceiling: number): Promise<Poured> {
  return new Promise((resolve) => {
    let written = 0;
    let done = false;
    const finish = (closedByClient: boolean) => {
      if (done) return;
      done = true;
      resolve({ written, closedByClient });
      if (!closedByClient) response.destroy();
    };
    response.on("close", () => finish(true));
    const write = (): void => {
      while (!done) {
        if (written >= ceiling) {
          finish(false);
          return;
        }
        written += chunk.length;
        if (!response.write(chunk)) {
          response.once("drain", write);
          return;
        }
      }
    };
    write();
  });
}

/**
 * Writes `piece` every `everyMs` (the hostile server's own pace: never silent for long, never done),
 * until the client closes the connection or `ceiling` pieces are written (then the server closes it).
 */
export function drip(response: http.ServerResponse, piece: string, everyMs: number, ceiling: number): Promise<{ pieces: number; closedByClient: boolean }> {
  return new Promise((resolve) => {
    let pieces = 0;
    const finish = (closedByClient: boolean) => {
      clearInterval(timer);
      resolve({ pieces, closedByClient });
    };
    const timer = setInterval(() => {
      if (pieces >= ceiling) {
        finish(false);
        response.destroy();
        return;
      }
      pieces += 1;
      response.write(piece);
    }, everyMs);
    response.on("close", () => finish(true));
  });
}

/** The most a client can have left unread in the kernel's socket buffers: its receive buffer and the server's send buffer, at their largest. */
export function kernelSocketSlack(): number {
  const largest = (file: string, fallback: number) => {
    try {
      return Number(readFileSync(file, "utf8").trim().split(/\s+/).at(-1)) || fallback;
    } catch {
      return fallback;
    }
  };
  return largest("/proc/sys/net/ipv4/tcp_rmem", 6 * 1024 * 1024) + largest("/proc/sys/net/ipv4/tcp_wmem", 4 * 1024 * 1024);
}
