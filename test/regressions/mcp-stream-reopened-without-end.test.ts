// A repository's HTTP MCP server answered every GET (the stream a server may hold open for messages
// of its own) with `retry: 0` and ended it at once. The SDK opens that stream again whenever the
// server ends it, after the delay the server's `retry:` names, its count of attempts starting again
// from zero each time: 300 new connections a second, most of a core of the worker, for as long as
// the job ran (and twenty servers for both cores).
//
// Fixed: the MCP port's fetch (net/create-mcp-http-fetch.ts) opens a server's GET stream at most 100
// times in a job (a quiet stream is reopened every 5 minutes); past that the server is closed as one
// that broke a limit, and not used again.
//
// Measured as events: the test calls a tool until the server is reported unusable (the code before
// never reports it: the test then fails at its timeout), and counts the streams the server saw.
import { describe, expect, it } from "vitest";
import { createDestinationRules, createHttpClient, createMcpPort, type McpServerSpec } from "../../src/net/index.js";
import { literalValues } from "../integration/agent/helpers.js";
import { startHostileMcpServer } from "../fakes/hostile-mcp-server.js";

const MAX_STREAMS = 100;

describe("an HTTP MCP server that ends its GET stream at once, asking to be reconnected", () => {
  it("has its stream opened at most 100 times, and is then closed and not used again", async () => {
    let streams = 0;
    const server = await startHostileMcpServer(
      (message, response) => {
        const result = message.method === "tools/list" ? { tools: [{ name: "t", inputSchema: { type: "object" } }] } : { content: [] };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      },
      {
        onGet: (response) => {
          streams += 1;
          response.writeHead(200, { "content-type": "text/event-stream" }).end("retry: 0\n\n");
        },
      },
    );
    const spec: McpServerSpec = { name: "looper", kind: "http", url: server.url, headers: literalValues(), trusted: false };
    const port = createMcpPort({ servers: [spec], http: createHttpClient({ rules: createDestinationRules([server.address]) }) });
    try {
      await port.discover(new AbortController().signal);
      let call = await port.call("looper", "t", {}, new AbortController().signal);
      while (call.unavailable === undefined) call = await port.call("looper", "t", {}, new AbortController().signal);
      expect(call.unavailable.error).toContain(`its event stream was opened ${MAX_STREAMS} times (streamsOpened)`);
      expect(streams).toBe(MAX_STREAMS);
    } finally {
      await port.close();
      await server.close();
    }
  });
});
