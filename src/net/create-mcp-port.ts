import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { McpCallResult, McpPort, McpServerFailure, McpToolInfo } from "../agent/ports.js";
import type { ScopedValues } from "../config/index.js";
import { errorMessage, TackleError } from "../errors/index.js";
import { type HttpClient, MiB } from "./create-http-client.js";
import { createMcpHttpFetch, type McpHttpLimits } from "./create-mcp-http-fetch.js";
import type { HttpLimitError } from "./http-limit-error.js";
import { createSandboxStdioTransport, type SandboxStdioTransport, type ServerExit, type StartProcess } from "./create-sandbox-stdio-transport.js";

/**
 * One server of the repo config, its `${TACKLE_SECRET_*}` values filled in by resolveScopedSecrets
 * (an HTTP server's headers for its `url`'s host, which is the only origin they are sent to).
 */
export type McpServerSpec =
  | { name: string; kind: "http"; url: string; headers: ScopedValues; trusted: boolean }
  | { name: string; kind: "stdio"; command: string[]; env: ScopedValues; trusted: boolean };

type StdioServerSpec = Extract<McpServerSpec, { kind: "stdio" }>;
type HttpServerSpec = Extract<McpServerSpec, { kind: "http" }>;

export interface McpPortOptions {
  servers: readonly McpServerSpec[];
  /** The job's HTTP client, under WebFetch's destination rules: the only way HTTP servers are reached. */
  http: HttpClient;
  /**
   * Starts a process in the job's sandbox (the workspace's ExecPort.start): where stdio servers run.
   * @defaultValue none: stdio servers are reported as failed
   */
  start?: StartProcess;
  /** For connecting and listing a server's tools. @defaultValue 15 000 */
  connectTimeoutMs?: number;
  /** For one call. @defaultValue 120 000 */
  callTimeoutMs?: number;
  /**
   * Over the defaults of each kind of HTTP exchange. A POST and its answer: 8 MiB, events of 1 MiB, 100 000 JSON values,
   * and a deadline (and longest silence) 30 s past the longer timeout above, behind the SDK's own
   * timeouts, which end the exchange sooner. The GET stream: 8 MiB, events of 1 MiB, no deadline, 5
   * minutes of silence. @defaultValue those
   */
  httpLimits?: Partial<McpHttpLimits>;
}

interface Connection {
  client: Client;
  /** A stdio server's transport, which knows whether and how its process ended. */
  stdio?: SandboxStdioTransport;
  /** An HTTP server's answer that broke a limit of the HTTP client: the server was closed then, and is not used again. */
  broken?: () => HttpLimitError | undefined;
}

const CLIENT_INFO = { name: "tackle", version: "1" };

/**
 * The SDK compiles each listed tool's `outputSchema` with Ajv and checks every call's
 * `structuredContent` against it, in this process: a server's `"pattern": "^(a+)+$"` and 40 characters
 * of content held the event loop, every job with it, for hours. Tackle reads only a result's text
 * blocks, so nothing of a server's schemas is compiled or run.
 */
const NO_SCHEMA_CHECKS: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** Every MCP client of the port: the SDK's, without its checks of the server's output schemas. */
function mcpClient(): Client {
  return new Client(CLIENT_INFO, { jsonSchemaValidator: NO_SCHEMA_CHECKS });
}
/** Pages of tools read from one server; a server listing more is cut there. */
const MAX_TOOL_PAGES = 20;
/**
 * Tool listings kept from all the job's servers together, over all their pages: characters (as JSON)
 * and JSON values. Each page is one answer within the HTTP client's limits, but twenty pages from each
 * of twenty servers would not be; and characters alone do not bound the heap (8 MiB of `{},` is 2.8
 * million objects). A page that passes either and the server's pages after it are left out.
 */
const MAX_LISTED_CHARS = 8 * MiB;
const MAX_LISTED_VALUES = 100_000;
/** JSON values one answer may hold (one event of an event stream): a few MB of objects at worst, besides the answer's bytes. */
const MAX_ANSWER_VALUES = 100_000;

/**
 * The repository's MCP servers, reached with the official SDK: streamable HTTP servers by the host
 * through the job's HTTP client (its limits, and MCP's, on every exchange), stdio servers as processes
 * in the job's sandbox (no network, the worktree as cwd), started at discovery or the first call. A server that cannot be reached, or whose
 * process ends, is reported (to the model, and through `failures` to the tracking comment) and left
 * out; a stdio server is never started twice, so a crash is not hidden by a silent restart.
 */
export function createMcpPort(options: McpPortOptions): McpPort {
  const connections = new Map<string, Promise<Connection>>();
  /** What the kept tool listings of every server hold, for MAX_LISTED_CHARS and MAX_LISTED_VALUES. */
  const listed = { chars: 0, values: 0 };
  /** Each server's first failure, at discovery or since. */
  const failed = new Map<string, McpServerFailure>();
  const transports = new Set<SandboxStdioTransport>();
  let discovered: Promise<McpToolInfo[]> | undefined;
  let closed = false;
  /** Aborted by close: no HTTP exchange outlives the port, not even a connect still waiting. */
  const stop = new AbortController();
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  const callTimeoutMs = options.callTimeoutMs ?? 120_000;
  const httpLimits = mcpHttpLimits(Math.max(connectTimeoutMs, callTimeoutMs) + 30_000, options.httpLimits);

  const fail = (failure: McpServerFailure): void => {
    if (!failed.has(failure.server)) failed.set(failure.server, failure);
  };

  const openStdio = async (spec: StdioServerSpec): Promise<Connection> => {
    if (options.start === undefined) {
      throw new TackleError("mcp_failed", "stdio MCP servers run in the job's sandbox, and this run has none that can hold a process; use an HTTP server");
    }
    const transport = createSandboxStdioTransport({ start: options.start, argv: spec.command, env: spec.env, maxJsonValues: MAX_ANSWER_VALUES });
    transports.add(transport);
    const client = mcpClient();
    try {
      await client.connect(transport, { timeout: connectTimeoutMs });
    } catch (error) {
      await transport.close().catch(() => undefined);
      const failure = { server: spec.name, error: stdioBroken(transport) ?? startFailure(transport.exit(), error), stderr: transport.stderrTail() };
      fail(failure);
      throw new TackleError("mcp_failed", failure.error, { cause: error });
    }
    // Ended by itself, with or without a call in flight: reported from now on, and not started again.
    client.onclose = () => {
      const exit = transport.exit();
      const broke = stdioBroken(transport);
      if (broke !== undefined) fail({ server: spec.name, error: broke, stderr: transport.stderrTail() });
      else if (exit !== undefined && !exit.stopped)
        fail({ server: spec.name, error: `its process ${exitText(exit)} mid-job and is not restarted`, stderr: transport.stderrTail() });
    };
    return { client, stdio: transport };
  };

  const open = async (spec: McpServerSpec): Promise<Connection> => {
    if (closed) throw new TackleError("mcp_failed", "the job's MCP servers are closed");
    return spec.kind === "stdio" ? openStdio(spec) : openHttp(spec);
  };

  const openHttp = async (spec: HttpServerSpec): Promise<Connection> => {
    const client = mcpClient();
    let broken: HttpLimitError | undefined;
    const onLimit = (error: HttpLimitError) => {
      // A stream gone quiet is no misbehaviour: the SDK opens its GET stream again.
      if (broken !== undefined || error.limit === "idleMs") return;
      broken = error;
      fail({ server: spec.name, error: brokenText(error) });
      // Every request waiting on this server fails now, naming the limit, not at its timeout.
      void client.close().catch(() => undefined);
    };
    const exchanges = createMcpHttpFetch(options.http, httpLimits, onLimit, stop.signal);
    const url = new URL(spec.url);
    const transport = new StreamableHTTPClientTransport(url, { fetch: sameOrigin(exchanges.fetch, url), requestInit: { headers: spec.headers } });
    transport.onmessage = exchanges.answered; // the SDK calls it before its own handler
    try {
      await client.connect(transport, { timeout: connectTimeoutMs });
    } catch (error) {
      throw brokenError(broken) ?? error;
    }
    return { client, broken: () => broken };
  };

  const connect = (spec: McpServerSpec): Promise<Connection> => {
    let connection = connections.get(spec.name);
    if (connection === undefined) {
      connection = open(spec);
      connection.catch((error: unknown) => fail({ server: spec.name, error: errorMessage(error) }));
      connections.set(spec.name, connection);
    }
    return connection;
  };

  const listTools = async (spec: McpServerSpec): Promise<McpToolInfo[]> => {
    const connection = await connect(spec);
    try {
      return await listPages(spec, connection.client);
    } catch (error) {
      throw brokenError(connection.broken?.()) ?? error;
    }
  };

  const listPages = async (spec: McpServerSpec, client: Client): Promise<McpToolInfo[]> => {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: connectTimeoutMs });
      const chars = listed.chars + JSON.stringify(answer.tools).length;
      const values = listed.values + countJsonValues(answer.tools);
      if (chars > MAX_LISTED_CHARS || values > MAX_LISTED_VALUES) break;
      listed.chars = chars;
      listed.values = values;
      for (const tool of answer.tools) {
        tools.push({
          server: spec.name,
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: { ...(tool.inputSchema as Record<string, unknown>), type: "object" },
          trusted: spec.trusted,
        });
      }
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  };

  const callTool = async (spec: McpServerSpec, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> => {
    const { client, stdio, broken } = await connect(spec);
    const gone = stdio?.exit();
    if (gone !== undefined) return unavailable({ server: spec.name, error: `its process ${exitText(gone)} earlier in this job and is not restarted` });
    const brokenBefore = broken?.();
    if (brokenBefore !== undefined) return unavailable({ server: spec.name, error: brokenText(brokenBefore) });
    const stdioBefore = stdio === undefined ? undefined : stdioBroken(stdio);
    if (stdioBefore !== undefined) return unavailable({ server: spec.name, error: stdioBefore });
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: callTimeoutMs });
      const blocks = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
      const content = blocks.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type} content]`)).join("\n");
      return { content, isError: result.isError === true };
    } catch (error) {
      const brokenNow = broken?.();
      if (brokenNow !== undefined) return unavailable({ server: spec.name, error: brokenText(brokenNow) });
      const stdioNow = stdio === undefined ? undefined : stdioBroken(stdio);
      if (stdioNow !== undefined) return unavailable({ server: spec.name, error: stdioNow, stderr: stdio!.stderrTail() });
      const exit = stdio?.exit();
      if (exit === undefined || exit.stopped) throw error;
      return unavailable({
        server: spec.name,
        error: `its process ${exitText(exit)} during the call to ${tool} and is not restarted`,
        stderr: stdio!.stderrTail(),
      });
    }
  };

  return {
    async discover() {
      discovered ??= (async () => {
        const settled = await Promise.allSettled(options.servers.map(listTools));
        return settled.flatMap((result, index) => {
          if (result.status === "fulfilled") return result.value;
          fail({ server: options.servers[index]!.name, error: errorMessage(result.reason) });
          return [];
        });
      })();
      const tools = await discovered;
      return { tools, failures: [...failed.values()] };
    },
    async call(server, tool, args, signal) {
      const spec = options.servers.find((candidate) => candidate.name === server);
      if (spec === undefined) throw new TackleError("mcp_failed", `no MCP server named "${server}"`);
      try {
        return await callTool(spec, tool, args, signal);
      } catch (error) {
        throw new TackleError("mcp_failed", `MCP server "${server}" failed the call to ${tool}: ${errorMessage(error)}`, { cause: error });
      }
    },
    failures: () => [...failed.values()],
    async close() {
      closed = true;
      stop.abort(new TackleError("aborted", "the job's MCP servers are closed"));
      // Stopping the processes first ends a stdio server's pending start at once, not at its timeout.
      await Promise.all([...transports].map((transport) => transport.close().catch(() => undefined)));
      await Promise.all([...connections.values()].map((connection) => connection.then(({ client }) => client.close()).catch(() => undefined)));
    },
  };
}

/**
 * The server's headers were scoped to its URL's host: a request anywhere else (a redirect the SDK would
 * follow, an endpoint the server names) is refused before it is sent, whatever the SDK's own policy.
 */
function sameOrigin(send: FetchLike, base: URL): FetchLike {
  return (input, init) => {
    const target = new URL(String(input));
    if (target.origin !== base.origin) {
      return Promise.reject(new TackleError("fetch_refused", `the MCP server's headers go to ${base.origin} only, not to ${target.origin}`));
    }
    return send(target, init);
  };
}

/** MCP's limits for HTTP exchanges: `deadlineMs` for a POST and its answer, over the defaults. */
function mcpHttpLimits(deadlineMs: number, over: Partial<McpHttpLimits> = {}): McpHttpLimits {
  const common = { maxBytes: 8 * MiB, maxEventBytes: MiB, maxJsonValues: MAX_ANSWER_VALUES };
  return {
    exchange: { ...common, deadlineMs, idleMs: deadlineMs, ...over.exchange },
    stream: { ...common, deadlineMs: null, idleMs: 5 * 60_000, ...over.stream },
  };
}

function brokenText(error: HttpLimitError): string {
  return `its answer broke a limit of Tackle's HTTP client, and the server is not used again: ${error.message}`;
}

/** A stdio server its transport closed for what it wrote, said as an HTTP server's broken limit is. */
function stdioBroken(transport: SandboxStdioTransport): string | undefined {
  const why = transport.broken();
  return why === undefined ? undefined : `its answer broke a limit of Tackle's MCP client, and the server is not used again: ${why}`;
}

function brokenError(error: HttpLimitError | undefined): TackleError | undefined {
  return error === undefined ? undefined : new TackleError("mcp_failed", brokenText(error), { cause: error });
}

function unavailable(failure: McpServerFailure): McpCallResult {
  return { content: "", isError: true, unavailable: failure };
}

function exitText(exit: ServerExit): string {
  return exit.exitCode === null ? "was killed by a signal" : `exited with code ${exit.exitCode}`;
}

/** Why a stdio server did not come up: its process ended, it could not be started, or it did not answer. */
function startFailure(exit: ServerExit | undefined, error: unknown): string {
  if (exit !== undefined && !exit.stopped) return `its process ${exitText(exit)} before it answered`;
  return `it did not start and answer: ${errorMessage(error)}`;
}

/** The values of a parsed JSON tree (objects, arrays and scalars), walked without recursion so no depth overflows the stack. */
function countJsonValues(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    count += 1;
    if (value === null || typeof value !== "object") continue;
    for (const item of Array.isArray(value) ? value : Object.values(value)) stack.push(item);
  }
  return count;
}
