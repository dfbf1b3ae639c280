/**
 * An MCP server on 127.0.0.1 speaking streamable HTTP through the official SDK (stateless: a server
 * and transport per request, as the SDK's examples do): `count` tools `tool1`…`toolN`, each echoing
 * its `text` input with its name. `close()` ends it mid-job, as a crashed server.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface FakeMcpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** `127.0.0.1:<port>`, for TACKLE_FETCH_ALLOW. */
  address: string;
  /** Tool calls received, in order. */
  calls: Array<{ tool: string; text: string }>;
  /** Headers of the requests received. */
  headers: Array<Record<string, string | string[] | undefined>>;
  close(): Promise<void>;
}

export async function startFakeMcpServer(count: number): Promise<FakeMcpServer> {
  const calls: FakeMcpServer["calls"] = [];
  const headers: FakeMcpServer["headers"] = [];
  const build = () => {
    const server = new McpServer({ name: "fake-docs", version: "1.0.0" });
    for (let i = 1; i <= count; i++) {
      server.registerTool(
        `tool${i}`,
        { description: `Looks up topic ${i} in the docs.`, inputSchema: { text: z.string().describe("what to look up") } },
        async ({ text }) => {
          calls.push({ tool: `tool${i}`, text });
          return { content: [{ type: "text", text: `tool${i} says: ${text}` }] };
        },
      );
    }
    return server;
  };
  const httpServer = http.createServer(async (request, response) => {
    headers.push(request.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const server = build();
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    address: `127.0.0.1:${port}`,
    calls,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
