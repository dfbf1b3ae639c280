/**
 * The one outbound HTTP client (createHttpClient) against loopback servers: each limit ends the
 * exchange with an HttpLimitError naming it and the server sees its socket closed; the caller's and
 * the job's signals and the reader's cancel close it too; the rules refuse before any connection.
 * Every wait is for an event of the server (a request, a socket closed), never for a time.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createDestinationRules, createHttpClient, type HttpLimits, isHttpLimitError } from "../../../src/net/index.js";
import { drip, type Poured, pour } from "../../fakes/hostile-mcp-server.js";

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

const CHUNK = Buffer.alloc(16 * 1024, "a");
/** Where a pouring server gives up by itself: far past every budget here. */
const CEILING = 512 * 1024 * 1024;

interface TestServer {
  url: string;
  address: string;
  /** Connections the server accepted. */
  connections: number;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Handler): Promise<TestServer> {
  const state: TestServer = { url: "", address: "", connections: 0 };
  const server = http.createServer(handler);
  server.on("connection", () => {
    state.connections += 1;
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/x`;
  state.address = `127.0.0.1:${port}`;
  return state;
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T | PromiseLike<T>): void } {
  let resolve!: (value: T | PromiseLike<T>) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const client = (server: TestServer, limits: Partial<HttpLimits> = {}, signal?: AbortSignal) =>
  createHttpClient({ rules: createDestinationRules([server.address]), limits, ...(signal ? { signal } : {}) });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("expected a rejection"),
    (error: unknown) => error,
  );
}

describe("createHttpClient's limits", () => {
  it("errors the body one byte past maxBytes, tells onLimit, and closes the socket", async () => {
    const poured = deferred<Poured>();
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      poured.resolve(pour(response, CHUNK, CEILING));
    });
    const told: unknown[] = [];
    const response = await client(server, { maxBytes: 100_000 }).fetch(server.url, { onLimit: (error) => told.push(error) });
    const error = await rejection(response.arrayBuffer());
    expect(isHttpLimitError(error, "maxBytes")).toBe(true);
    expect((error as Error).message).toBe(`${server.url}: the response passed 100000 bytes (maxBytes): the connection was closed`);
    expect(told).toEqual([error]);
    expect((await poured.promise).closedByClient).toBe(true);
  });

  it("caps one event of an event stream, not its total, nor a line of another type", async () => {
    const server = await serve((request, response) => {
      const type = request.url === "/plain" ? "text/plain" : "text/event-stream; charset=utf-8";
      response.writeHead(200, { "content-type": type });
      if (request.url === "/events") {
        for (let i = 0; i < 40; i += 1) response.write(`data: ${"e".repeat(8_000)}\r\n\r\n`);
        response.end();
      } else response.end(`data: ${"l".repeat(200_000)}`);
    });
    const limited = client(server, { maxEventBytes: 64 * 1024 });
    const base = server.url.replace(/\/x$/, "");
    expect((await (await limited.fetch(`${base}/events`)).text()).length).toBe(40 * 8_010);
    expect((await (await limited.fetch(`${base}/plain`)).text()).length).toBe(200_006);
    const error = await rejection((await limited.fetch(`${base}/line`)).text());
    expect(isHttpLimitError(error, "maxEventBytes")).toBe(true);
    expect((error as Error).message).toContain("an event of its event stream passed 64 KiB without ending (maxEventBytes)");
  });

  it("holds the deadline over the headers: a server that never answers is cut", async () => {
    const closed = deferred<void>();
    const server = await serve((request) => {
      request.socket.on("close", () => closed.resolve());
    });
    const error = await rejection(client(server, { deadlineMs: 200 }).fetch(server.url));
    expect(isHttpLimitError(error, "deadlineMs")).toBe(true);
    expect((error as Error).message).toBe(`${server.url}: no complete response within 0.2 s (deadlineMs): the connection was closed`);
    await closed.promise;
  });

  it("holds the deadline over the body: a body that drips is cut", async () => {
    const dripped = deferred<{ pieces: number; closedByClient: boolean }>();
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      dripped.resolve(drip(response, ".", 10, 2_000));
    });
    const response = await client(server, { deadlineMs: 300 }).fetch(server.url);
    expect(isHttpLimitError(await rejection(response.text()), "deadlineMs")).toBe(true);
    expect((await dripped.promise).closedByClient).toBe(true);
  });

  it("cuts a body gone silent at idleMs, with no deadline", async () => {
    const closed = deferred<void>();
    const server = await serve((request, response) => {
      request.socket.on("close", () => closed.resolve());
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": hello\n\n");
    });
    const response = await client(server, { deadlineMs: null, idleMs: 200 }).fetch(server.url);
    const error = await rejection(response.text());
    expect(isHttpLimitError(error, "idleMs")).toBe(true);
    expect((error as Error).message).toContain("nothing received for 0.2 s (idleMs)");
    await closed.promise;
  });
});

describe("createHttpClient's ends", () => {
  it("closes the socket when the caller's signal aborts mid-body", async () => {
    const poured = deferred<Poured>();
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      poured.resolve(pour(response, CHUNK, CEILING));
    });
    const caller = new AbortController();
    const response = await client(server, { maxBytes: CEILING }).fetch(server.url, { signal: caller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    caller.abort();
    const error = await rejection(reader.read());
    expect(isTackleError(error, "aborted")).toBe(true);
    expect((await poured.promise).closedByClient).toBe(true);
  });

  it("closes every exchange of the client when the job's signal aborts", async () => {
    const pouring: Array<Promise<Poured>> = [];
    const two = deferred<void>();
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      pouring.push(pour(response, CHUNK, CEILING));
      if (pouring.length === 2) two.resolve();
    });
    const job = new AbortController();
    const http = client(server, { maxBytes: CEILING }, job.signal);
    const responses = await Promise.all([http.fetch(server.url), http.fetch(server.url)]);
    await two.promise;
    job.abort();
    for (const poured of await Promise.all(pouring)) expect(poured.closedByClient).toBe(true);
    for (const response of responses) expect(isTackleError(await rejection(response.text()), "aborted")).toBe(true);
    expect(isTackleError(await rejection(http.fetch(server.url)), "aborted")).toBe(true);
  });

  it("closes the socket when the reader cancels the body", async () => {
    const poured = deferred<Poured>();
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      poured.resolve(pour(response, CHUNK, CEILING));
    });
    const response = await client(server, { maxBytes: CEILING }).fetch(server.url);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect((await poured.promise).closedByClient).toBe(true);
  });

  it("refuses a destination the rules refuse, without connecting", async () => {
    const server = await serve((_request, response) => response.end("no"));
    const refusing = createHttpClient({ rules: createDestinationRules(["example.com"]) });
    const error = await rejection(refusing.fetch(server.url));
    expect(isTackleError(error, "fetch_refused")).toBe(true);
    expect(server.connections).toBe(0);
  });

  it("sends the method, headers and body it is given, and returns status and headers as they came", async () => {
    const server = await serve(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      response.writeHead(201, { "content-type": "application/json", "x-echo": String(request.headers["x-key"]) });
      response.end(JSON.stringify({ method: request.method, body: Buffer.concat(chunks).toString("utf8") }));
    });
    const response = await client(server).fetch(server.url, { method: "POST", headers: { "x-key": "k1" }, body: '{"a":1}' });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-echo")).toBe("k1");
    expect(await response.json()).toEqual({ method: "POST", body: '{"a":1}' });
  });
});
