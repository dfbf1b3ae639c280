// A repository's HTTP MCP server sent `ping` requests on its GET stream, one event each, and never
// answered the client's POSTs that carried the pongs. The SDK answers each request as soon as it reads
// it, without waiting for the one before: 5,000 pings (250 KB of events, far within the stream's 8 MiB
// and its 1 MiB events) held 5,000 sockets open at once, each until its exchange's deadline 150 s on.
// 8 MiB of pings is 200,000 sockets: past the process's file limit (20,000 here), so every job of
// the worker then fails to open a file or a connection.
//
// Fixed: the MCP port's fetch (net/create-mcp-http-fetch.ts) lets at most 8 answers to a server's own
// requests be in flight; a server asking more at once is closed as one that broke a limit, and not
// used again.
//
// Measured as events: the hostile server counts the answers it holds open; it stops when its GET
// stream is closed by the client, or when every ping was answered (the code before).
import { afterEach, describe, expect, it } from "vitest";
import { createDestinationRules, createHttpClient, createMcpPort, type McpServerSpec } from "../../src/net/index.js";
import { literalValues } from "../integration/agent/helpers.js";
import { startHostileMcpServer } from "../fakes/hostile-mcp-server.js";

const PINGS = 500;
const MAX_ANSWERS_IN_FLIGHT = 8;

describe("an HTTP MCP server flooding the client with requests of its own", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  it("gets at most 8 answers in flight, and is closed and not used again", async () => {
    let open = 0;
    let peak = 0;
    let answered = 0;
    let over!: () => void;
    const ended = new Promise<void>((resolve) => {
      over = resolve;
    });
    const server = await startHostileMcpServer(
      (message, response) => {
        if (message.method === "tools/list") {
          response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { tools: [] } }));
          return;
        }
        // A pong: held open, never answered.
        open += 1;
        answered += 1;
        peak = Math.max(peak, open);
        response.on("close", () => {
          open -= 1;
        });
        if (answered === PINGS) over();
      },
      {
        onGet: (response) => {
          response.writeHead(200, { "content-type": "text/event-stream" });
          let events = "";
          for (let i = 0; i < PINGS; i++) events += `event: message\ndata: {"jsonrpc":"2.0","id":"p${i}","method":"ping"}\n\n`;
          response.write(events);
          response.on("close", over);
        },
      },
    );
    closers.push(() => server.close());
    const spec: McpServerSpec = { name: "pinger", kind: "http", url: server.url, headers: literalValues(), trusted: false };
    const port = createMcpPort({ servers: [spec], http: createHttpClient({ rules: createDestinationRules([server.address]) }) });
    closers.push(() => port.close());
    await port.discover(new AbortController().signal);
    await ended;
    expect(peak).toBeLessThanOrEqual(MAX_ANSWERS_IN_FLIGHT);
    expect(answered).toBeLessThan(PINGS);
    const failure = port.failures?.()[0];
    expect(failure?.server).toBe("pinger");
    expect(failure?.error).toContain(`asked more than ${MAX_ANSWERS_IN_FLIGHT} things at once (answersInFlight)`);
    const call = await port.call("pinger", "anything", {}, new AbortController().signal);
    expect(call.unavailable?.error).toContain("is not used again");
  });
});
