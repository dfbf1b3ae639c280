import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpPort, McpToolInfo } from "../agent/ports.js";
import { errorMessage, TackleError } from "../errors/index.js";
import type { GuardedFetch } from "./create-guarded-fetch.js";

/** One server of the repo config, its `${TACKLE_SECRET_*}` values already substituted. */
export type McpServerSpec = (
  | { name: string; kind: "http"; url: string; headers: Record<string, string>; trusted: boolean }
  | { name: string; kind: "stdio"; command: string[]; env: Record<string, string>; trusted: boolean }
) & {
  /** `${TACKLE_SECRET_*}` names its values use that the operator did not set: the server is not started. */
  missing?: string[];
};

export interface McpPortOptions {
  servers: readonly McpServerSpec[];
  /** The host's fetch under WebFetch's destination rules. */
  fetch: GuardedFetch;
  /** For connecting and listing a server's tools. @defaultValue 15 000 */
  connectTimeoutMs?: number;
  /** For one call. @defaultValue 120 000 */
  callTimeoutMs?: number;
}

const CLIENT_INFO = { name: "tackle", version: "1" };
/** Pages of tools read from one server; a server listing more is cut there. */
const MAX_TOOL_PAGES = 20;

/**
 * The repository's MCP servers, reached by the host with the official SDK: streamable HTTP servers
 * through the guarded fetch. Stdio servers need a process held in the job's sandbox between tool
 * calls, which the sandbox does not offer yet: they are reported as failed, and the job goes on.
 */
export function createMcpPort(options: McpPortOptions): McpPort {
  const clients = new Map<string, Promise<Client>>();
  let discovered: Promise<{ tools: McpToolInfo[]; failures: Array<{ server: string; error: string }> }> | undefined;
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;

  const connect = (spec: McpServerSpec): Promise<Client> => {
    let client = clients.get(spec.name);
    if (client === undefined) {
      client = (async () => {
        if (spec.missing !== undefined && spec.missing.length > 0) {
          throw new TackleError("mcp_failed", `it needs ${spec.missing.join(", ")}, which the operator has not set`);
        }
        if (spec.kind === "stdio") {
          throw new TackleError("mcp_failed", "stdio MCP servers are not supported yet (they need a process held in the job's sandbox); use an HTTP server");
        }
        const transport = new StreamableHTTPClientTransport(new URL(spec.url), { fetch: options.fetch, requestInit: { headers: spec.headers } });
        const mcp = new Client(CLIENT_INFO);
        await mcp.connect(transport, { timeout: connectTimeoutMs });
        return mcp;
      })();
      client.catch(() => undefined);
      clients.set(spec.name, client);
    }
    return client;
  };

  const listTools = async (spec: McpServerSpec): Promise<McpToolInfo[]> => {
    const client = await connect(spec);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: connectTimeoutMs });
      for (const tool of listed.tools) {
        tools.push({
          server: spec.name,
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: { ...(tool.inputSchema as Record<string, unknown>), type: "object" },
          trusted: spec.trusted,
        });
      }
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  };

  return {
    discover() {
      discovered ??= (async () => {
        const settled = await Promise.allSettled(options.servers.map(listTools));
        const tools: McpToolInfo[] = [];
        const failures: Array<{ server: string; error: string }> = [];
        settled.forEach((result, index) => {
          const server = options.servers[index]!.name;
          if (result.status === "fulfilled") tools.push(...result.value);
          else failures.push({ server, error: errorMessage(result.reason) });
        });
        return { tools, failures };
      })();
      return discovered;
    },
    async call(server, tool, args, signal) {
      const spec = options.servers.find((candidate) => candidate.name === server);
      if (spec === undefined) throw new TackleError("mcp_failed", `no MCP server named "${server}"`);
      try {
        const client = await connect(spec);
        const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: options.callTimeoutMs ?? 120_000 });
        const blocks = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
        const content = blocks.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type} content]`)).join("\n");
        return { content, isError: result.isError === true };
      } catch (error) {
        throw new TackleError("mcp_failed", `MCP server "${server}" failed the call to ${tool}: ${errorMessage(error)}`, { cause: error });
      }
    },
    async close() {
      await Promise.all([...clients.values()].map((client) => client.then((mcp) => mcp.close()).catch(() => undefined)));
    },
  };
}
