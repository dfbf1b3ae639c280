// A repository's HTTP MCP servers (at most 20) each answered `tools/list` with one tool whose input
// schema held 8 MiB of `{},{},…`: within the HTTP client's byte budget, and within the 8 MiB of
// listings kept per server. Parsed, that is 2.8 million objects, about 170 MB of heap per server: the
// twenty listings of one job kept 3.4 GB (measured: heap grew by 3,415 MB, RSS 3.9 GB, against a heap
// limit of about 4 GB), and the `initialize` answer, whose capabilities the SDK keeps, did the same.
// A second such job in the worker, or a second page, and the process dies out of memory with every job.
//
// Fixed: the HTTP client counts the JSON values of a body as it reads it (`maxJsonValues`,
// net/json-value-meter.ts; per event in an event stream), which MCP's exchanges set; and the listings
// kept are counted for the job's servers together, in values as well as characters.
//
// Measured without a clock: the heap after a collection, before and after discovery.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createDestinationRules, createHttpClient, createMcpPort, type McpServerSpec } from "../../src/net/index.js";
import { literalValues } from "../integration/agent/helpers.js";
import { type HostileHandler, type HostileMcpServer, type HostileOptions, startHostileMcpServer } from "../fakes/hostile-mcp-server.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;
/** The most repo-config.ts lets one repository name. */
const SERVERS = 20;
/** What a job's discovery may add to the heap: far below one flooded listing of the code before. */
const BOUND = 64 * MiB;
const NO_SDK_TIMEOUT = { connectTimeoutMs: 3_600_000, callTimeoutMs: 3_600_000 };

/**
 * Writes `{"jsonrpc":"2.0","id":…,"result":<head>{},{},…<tail>}` of about `bytes` bytes, a piece at a
 * time as the socket takes it, so the hostile server itself (in this process) holds next to nothing.
 */
async function flood(response: ServerResponse, id: unknown, head: string, tail: string, bytes = 8 * MiB - 1024, after = ""): Promise<void> {
  const start = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${head}{}`;
  const end = `${tail}}${after}`;
  let left = Math.floor((bytes - start.length - end.length) / 3);
  const piece = ",{}".repeat(16 * 1024);
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  const write = (text: string) =>
    response.write(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          response.once("drain", resolve);
          response.once("close", resolve);
        });
  await write(start);
  while (left > 0 && !closed) {
    const count = Math.min(left, 16 * 1024);
    await write(count === 16 * 1024 ? piece : ",{}".repeat(count));
    left -= count;
  }
  if (!closed) response.end(end);
}

const listing = (response: ServerResponse, id: unknown, bytes?: number, after?: string) =>
  flood(response, id, '{"tools":[{"name":"t","inputSchema":{"type":"object","p":[', "]}}]}", bytes, after);

const floodedList: HostileHandler = (message, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  void listing(response, message.id);
};

describe("a repository's HTTP MCP servers answering with 8 MiB of tiny JSON values", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function discoverFrom(handler: HostileHandler, options: HostileOptions = {}) {
    const servers: HostileMcpServer[] = [];
    for (let i = 0; i < SERVERS; i++) {
      const server = await startHostileMcpServer(handler, options);
      closers.push(() => server.close());
      servers.push(server);
    }
    const specs: McpServerSpec[] = servers.map((server, i) => ({ name: `s${i}`, kind: "http", url: server.url, headers: literalValues(), trusted: false }));
    const http = createHttpClient({ rules: createDestinationRules(servers.map((server) => server.address)) });
    const port = createMcpPort({ servers: specs, http, ...NO_SDK_TIMEOUT });
    closers.push(() => port.close());
    gc();
    const before = process.memoryUsage().heapUsed;
    const discovered = await port.discover(new AbortController().signal);
    gc();
    return { ...discovered, grown: process.memoryUsage().heapUsed - before, servers };
  }

  it("keeps the heap bounded when every server lists one tool with a flooded schema", async () => {
    const { tools, failures, grown } = await discoverFrom(floodedList);
    expect(grown).toBeLessThan(BOUND);
    expect(tools).toEqual([]);
    expect(failures).toHaveLength(SERVERS);
    expect(failures[0]!.error).toContain("passed 100000 JSON values (maxJsonValues)");
  });

  it("keeps the heap bounded when the flood is in the initialize answer the SDK keeps", async () => {
    const { failures, grown } = await discoverFrom(floodedList, {
      onInitialize: (message, response) => {
        const head = `{"protocolVersion":${JSON.stringify(message.params?.protocolVersion)},"serverInfo":{"name":"x","version":"1"},"capabilities":{"tools":{},"p":[`;
        response.writeHead(200, { "content-type": "application/json" });
        void flood(response, message.id, head, "]}}");
      },
    });
    expect(grown).toBeLessThan(BOUND);
    expect(failures).toHaveLength(SERVERS);
  });

  it("keeps the heap bounded when the flood comes as one event of an event stream", async () => {
    const { failures, grown } = await discoverFrom((message, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      // Under the 1 MiB event cap, many times over the value cap.
      response.write("event: message\ndata: ");
      void listing(response, message.id, MiB - 1024, "\n\n");
    });
    expect(grown).toBeLessThan(BOUND);
    expect(failures[0]!.error).toContain("an event of its event stream passed 100000 JSON values (maxJsonValues)");
  });

  it("keeps the listings of all the servers together within one budget", async () => {
    // Each page is within an answer's values; twenty pages from each of twenty servers were not.
    const { tools, failures, grown } = await discoverFrom((message, response) => {
      const page = Number((message.params?.cursor as string | undefined) ?? "0");
      response.writeHead(200, { "content-type": "application/json" });
      void flood(response, message.id, `{"nextCursor":"${page + 1}","tools":[{"name":"t${page}","inputSchema":{"type":"object","p":[`, "]}}]}", 100_000);
    });
    expect(failures).toEqual([]);
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.length).toBeLessThan(SERVERS * 20);
    expect(grown).toBeLessThan(BOUND);
  });

  it("still lists an honest server's tools in full", async () => {
    const { tools, failures } = await discoverFrom((message, response) => {
      const many = Array.from({ length: 200 }, (_, i) => ({
        name: `tool${i}`,
        description: `Does thing ${i}, with commas, [brackets] and {braces} in "quoted" text.`,
        inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } }, required: ["a"] },
      }));
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { tools: many } }));
    });
    expect(failures).toEqual([]);
    expect(tools).toHaveLength(SERVERS * 200);
  });
});
