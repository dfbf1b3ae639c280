// A repository's HTTP MCP server answered `tools/list` with `text/event-stream` and one `data:` line
// that never ended. Discovery timed out after 15 s, but the body went on being read: the host's fetch
// (net/create-guarded-fetch.ts) had no byte cap, no deadline on the body, and nothing cancelled the
// body when the SDK gave up, so the SDK's SSE parser kept the growing line. The server's or worker's
// one process grew 15–30 MB/s until "JavaScript heap out of memory" (exit 134), every job with it.
//
// Fixed: every outbound request to a destination untrusted input chose goes through one client with
// limits (net/create-http-client.ts, sendLimitedRequest): a byte budget per response, a cap on one
// event-stream event, a deadline over headers and body, an idle timeout, and the job's and the
// caller's signals, each of which destroys the socket.
//
// Measured without a clock: the hostile server counts the bytes the socket took before the client
// closed it. What the client can have read is at most that; a client without limits never closes it,
// and the server gives up at a ceiling far past the bound instead (the test then fails, not hangs).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createDestinationRules, createHttpClient, createMcpPort, createWebFetcher, type McpServerSpec } from "../../src/net/index.js";
import { literalValues } from "../integration/agent/helpers.js";
import {
  drip,
  type HostileHandler,
  type HostileMcpServer,
  type HostileOptions,
  kernelSocketSlack,
  type Poured,
  pour,
  startHostileMcpServer,
} from "../fakes/hostile-mcp-server.js";

const MiB = 1024 * 1024;
/** MCP's defaults: the cap on one event-stream event, and the byte budget of one answer. */
const EVENT_CAP = MiB;
const BUDGET = 8 * MiB;
const SLACK = kernelSocketSlack();
/** Where the hostile server stops by itself: twice past the largest bound any test here allows. */
const CEILING = 2 * (BUDGET + 2 * MiB + SLACK);
const CHUNK = Buffer.alloc(64 * 1024, "a");
/** The SDK's own timeouts out of the way: what ends an exchange here is a limit or a signal. */
const NO_SDK_TIMEOUT = { connectTimeoutMs: 3_600_000, callTimeoutMs: 3_600_000 };

function deferred<T>(): { promise: Promise<T>; resolve(value: T | PromiseLike<T>): void } {
  let resolve!: (value: T | PromiseLike<T>) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const spec = (server: HostileMcpServer): McpServerSpec => ({ name: "evil", kind: "http", url: server.url, headers: literalValues(), trusted: false });
const rulesFor = (server: { address: string }) => createDestinationRules([server.address]);
const never = () => new AbortController().signal;

/** Answers tools/list with one harmless tool, and hands tools/call to `call`. */
const withSlowTool =
  (call: HostileHandler): HostileHandler =>
  (message, response) => {
    if (message.method !== "tools/list") return call(message, response);
    const result = { tools: [{ name: "slow", description: "Takes its time.", inputSchema: { type: "object" } }] };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
  };

describe("an HTTP MCP server whose answer never ends", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function hostile(handler: HostileHandler, options: HostileOptions = {}): Promise<HostileMcpServer> {
    const server = await startHostileMcpServer(handler, options);
    closers.push(() => server.close());
    return server;
  }

  it("cuts an endless `data:` line at the event cap, closes the socket, and fails discovery naming the limit", async () => {
    const poured = deferred<Poured>();
    const server = await hostile((_message, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("event: message\ndata: ");
      poured.resolve(pour(response, CHUNK, CEILING));
    });
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server) }), ...NO_SDK_TIMEOUT });
    closers.push(() => port.close());
    const discovering = port.discover(never());
    const { written, closedByClient } = await poured.promise;
    expect(closedByClient).toBe(true);
    expect(written).toBeLessThanOrEqual(EVENT_CAP + SLACK);
    const { tools, failures } = await discovering;
    expect(tools).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.server).toBe("evil");
    expect(failures[0]!.error).toContain("an event of its event stream passed 1 MiB without ending (maxEventBytes)");
    expect(failures[0]!.error).toContain("is not used again");
  });

  it("cuts a JSON answer announcing a huge Content-Length at the byte budget", async () => {
    const poured = deferred<Poured>();
    const server = await hostile((_message, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": String(2 ** 50) });
      response.write('{"jsonrpc":"2.0","id":1,"result":{"tools":[],"pad":"');
      poured.resolve(pour(response, CHUNK, CEILING));
    });
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server) }), ...NO_SDK_TIMEOUT });
    closers.push(() => port.close());
    const discovering = port.discover(never());
    const { written, closedByClient } = await poured.promise;
    expect(closedByClient).toBe(true);
    expect(written).toBeLessThanOrEqual(BUDGET + SLACK);
    const { failures } = await discovering;
    expect(failures[0]!.error).toContain("the response passed 8 MiB (maxBytes)");
  });

  it("ends an answer that drips past the exchange's deadline", async () => {
    const dripped = deferred<{ pieces: number; closedByClient: boolean }>();
    const server = await hostile((_message, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      // A comment line every 10 ms: never silent, never an event, never done.
      dripped.resolve(drip(response, ": still working\n\n", 10, 2_000));
    });
    const port = createMcpPort({
      servers: [spec(server)],
      http: createHttpClient({ rules: rulesFor(server) }),
      ...NO_SDK_TIMEOUT,
      httpLimits: { exchange: { deadlineMs: 300 } },
    });
    closers.push(() => port.close());
    const discovering = port.discover(never());
    expect((await dripped.promise).closedByClient).toBe(true);
    const { failures } = await discovering;
    expect(failures[0]!.error).toContain("no complete response within 0.3 s (deadlineMs)");
  });

  it("closes the socket of a call whose caller gives up mid-body, without counting it against the server", async () => {
    const dripped: Array<Promise<{ pieces: number; closedByClient: boolean }>> = [];
    const started = deferred<void>();
    const server = await hostile(
      withSlowTool((_message, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        dripped.push(drip(response, ": working\n\n", 10, 2_000));
        started.resolve();
      }),
    );
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server) }), ...NO_SDK_TIMEOUT });
    closers.push(() => port.close());
    expect((await port.discover(never())).tools.map((tool) => tool.name)).toEqual(["slow"]);
    const caller = new AbortController();
    const calling = port.call("evil", "slow", {}, caller.signal);
    calling.catch(() => undefined); // looked at below, once the socket is seen closed
    await started.promise;
    caller.abort(new Error("the model's turn ended"));
    expect((await dripped[0]!).closedByClient).toBe(true);
    await expect(calling).rejects.toThrow(/failed the call to slow/);
    expect(port.failures?.()).toEqual([]);
  });

  it("closes the socket of a call in flight when the job ends", async () => {
    let dripped: Promise<{ pieces: number; closedByClient: boolean }> | undefined;
    const started = deferred<void>();
    const server = await hostile(
      withSlowTool((_message, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        dripped = drip(response, ": working\n\n", 10, 2_000);
        started.resolve();
      }),
    );
    const job = new AbortController();
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server), signal: job.signal }), ...NO_SDK_TIMEOUT });
    closers.push(() => port.close());
    await port.discover(never());
    const calling = port.call("evil", "slow", {}, never());
    calling.catch(() => undefined); // looked at below, once the socket is seen closed
    await started.promise;
    job.abort(new Error("the job was stopped"));
    expect((await dripped!).closedByClient).toBe(true);
    await expect(calling).rejects.toThrow(/failed the call to slow/);
  });

  it("closes the socket of a server still connecting when the session closes its servers", async () => {
    const dripped = deferred<{ pieces: number; closedByClient: boolean }>();
    const started = deferred<void>();
    const server = await hostile(
      withSlowTool(() => undefined),
      {
        onInitialize: (_message, response) => {
          response.writeHead(200, { "content-type": "text/event-stream" });
          dripped.resolve(drip(response, ": initializing\n\n", 10, 2_000));
          started.resolve();
        },
      },
    );
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server) }), ...NO_SDK_TIMEOUT });
    const discovering = port.discover(never());
    await started.promise;
    await port.close();
    expect((await dripped.promise).closedByClient).toBe(true);
    expect((await discovering).tools).toEqual([]);
  });
});

describe("an HTTP MCP server listing page after page", () => {
  it("keeps at most 8 MiB of tool listings from it, and asks for no page past that", async () => {
    const description = "d".repeat(3 * MiB);
    const server = await startHostileMcpServer((message, response) => {
      const page = Number((message.params?.cursor as string | undefined) ?? "0");
      const result = { tools: [{ name: `tool${page}`, description, inputSchema: { type: "object" } }], nextCursor: String(page + 1) };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    });
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server) }), ...NO_SDK_TIMEOUT });
    try {
      const { tools, failures } = await port.discover(never());
      expect(tools.map((tool) => tool.name)).toEqual(["tool0", "tool1"]);
      expect(failures).toEqual([]);
      expect(server.received.filter((message) => message.method === "tools/list")).toHaveLength(3);
    } finally {
      await port.close();
      await server.close();
    }
  });
});

describe("an HTTP MCP server's quiet GET stream", () => {
  it("is closed at its idle limit and opened again, and the server is still used", async () => {
    const streams: Array<Promise<boolean>> = [];
    const second = deferred<void>();
    const server = await startHostileMcpServer(
      withSlowTool((message, response) => {
        const result = { content: [{ type: "text", text: "done" }] };
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      }),
      {
        onGet: (response) => {
          response.writeHead(200, { "content-type": "text/event-stream" });
          response.flushHeaders();
          streams.push(new Promise((resolve) => response.on("close", () => resolve(true))));
          if (streams.length === 2) second.resolve();
        },
      },
    );
    const port = createMcpPort({
      servers: [spec(server)],
      http: createHttpClient({ rules: rulesFor(server) }),
      ...NO_SDK_TIMEOUT,
      httpLimits: { stream: { idleMs: 200 } },
    });
    try {
      expect((await port.discover(never())).tools).toHaveLength(1);
      await second.promise;
      expect(await streams[0]).toBe(true);
      expect(await port.call("evil", "slow", {}, never())).toEqual({ content: "done", isError: false });
      expect(port.failures?.()).toEqual([]);
    } finally {
      await port.close();
      await server.close();
    }
  });
});

describe("an HTTP MCP server's GET stream that never ends a line", () => {
  it("is cut at the event cap even when it does not call itself an event stream", async () => {
    const poured = deferred<Poured>();
    const server = await startHostileMcpServer(
      withSlowTool(() => undefined),
      {
        onGet: (response) => {
          // The SDK parses its GET stream as events whatever the type says.
          response.writeHead(200, { "content-type": "text/plain" });
          response.write("data: ");
          poured.resolve(pour(response, CHUNK, CEILING));
        },
      },
    );
    const port = createMcpPort({ servers: [spec(server)], http: createHttpClient({ rules: rulesFor(server) }), ...NO_SDK_TIMEOUT });
    try {
      await port.discover(never());
      const { written, closedByClient } = await poured.promise;
      expect(closedByClient).toBe(true);
      expect(written).toBeLessThanOrEqual(EVENT_CAP + SLACK);
      expect(port.failures?.()[0]?.error).toContain("(maxEventBytes)");
    } finally {
      await port.close();
      await server.close();
    }
  });
});

describe("a web page that never ends", () => {
  it("is cut at WebFetch's maxBytes, even under a huge Content-Length, and its socket closed", async () => {
    const poured = deferred<Poured>();
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-length": String(2 ** 50) });
      poured.resolve(pour(response, CHUNK, CEILING));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const page = await createWebFetcher({ allow: [`127.0.0.1:${port}`], maxBytes: MiB, maxChars: 2 * MiB }).fetch(
        `http://127.0.0.1:${port}/endless`,
        never(),
      );
      expect(page.text).toHaveLength(MiB);
      expect(page.truncatedChars).toBe(2 ** 50 - MiB);
      const { written, closedByClient } = await poured.promise;
      expect(closedByClient).toBe(true);
      expect(written).toBeLessThanOrEqual(2 * MiB + SLACK);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
