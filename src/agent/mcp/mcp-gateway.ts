import type { McpPort, McpServerFailure, McpToolInfo } from "../ports.js";
import { fenceUntrusted } from "../prompt/fence-untrusted.js";
import type { PolicyDecision, Tool, ToolResult } from "../tools/tool.js";
import { createActivatedMcpTool } from "./activated-mcp-tool.js";
import { mcpSource, qualifiedName } from "./mcp-tool-names.js";
import { renderMcpFailure } from "./render-mcp-failure.js";

/** Activated MCP tools offered as first-class tools at once; an 11th evicts the least recently used. */
export const MCP_SLOTS = 10;

export interface ActivationChange {
  /** With each tool's server and whether it is trusted: its description and schema are that server's text, read by the model from now on. */
  activated: Array<{ name: string; slot: number; server: string; trusted: boolean }>;
  evicted: string[];
  deactivated: string[];
  unknown: string[];
}

/**
 * The MCP gateway of one job: what the servers offer, which tools hold the 10 slots, and the calls.
 * Activated tools are offered in slot order (never by recency), so the tool list changes only when a
 * slot does, and one turn's changes reach the next request together.
 */
export interface McpGateway {
  discover(signal: AbortSignal): Promise<{ tools: McpToolInfo[]; failures: McpServerFailure[] }>;
  /** Whether the tool holds a slot. */
  isActive(qualified: string): boolean;
  change(request: { activate: readonly string[]; deactivate: readonly string[] }, signal: AbortSignal): Promise<ActivationChange>;
  /** Calls a discovered tool (activated or not); its result fenced as the server's data, or why its server is gone. */
  call(qualified: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
  /** Ask once per MCP tool per job, unless its server is trusted. */
  decide(qualified: string): Promise<PolicyDecision>;
  /** The calls made so far, by server and tool, in the order each was first called: for the tracking comment. */
  usage(): Array<{ server: string; tools: Array<{ name: string; calls: number }> }>;
}

export function createMcpGateway(port: McpPort, offer: (tools: Tool[]) => void): McpGateway {
  const slots: Array<{ tool: McpToolInfo; used: number } | undefined> = Array.from({ length: MCP_SLOTS }, () => undefined);
  let tick = 0;
  const lookup = async (qualified: string, signal: AbortSignal): Promise<McpToolInfo | undefined> =>
    (await port.discover(signal)).tools.find((tool) => qualifiedName(tool) === qualified);
  const publish = () => offer(slots.flatMap((slot) => (slot === undefined ? [] : [createActivatedMcpTool(slot.tool, gateway)])));
  const calls = new Map<string, Map<string, number>>();
  const count = (tool: McpToolInfo): void => {
    const tools = calls.get(tool.server) ?? new Map<string, number>();
    tools.set(tool.name, (tools.get(tool.name) ?? 0) + 1);
    calls.set(tool.server, tools);
  };
  const slotOf = (qualified: string) => slots.findIndex((slot) => slot !== undefined && qualifiedName(slot.tool) === qualified);

  const gateway: McpGateway = {
    discover: (signal) => port.discover(signal),
    isActive: (qualified) => slotOf(qualified) !== -1,
    async change(request, signal) {
      const change: ActivationChange = { activated: [], evicted: [], deactivated: [], unknown: [] };
      for (const name of request.deactivate) {
        const index = slotOf(name);
        if (index === -1) continue;
        slots[index] = undefined;
        change.deactivated.push(name);
      }
      for (const name of request.activate) {
        const tool = await lookup(name, signal);
        if (tool === undefined) {
          change.unknown.push(name);
          continue;
        }
        const existing = slotOf(name);
        if (existing !== -1) {
          slots[existing]!.used = ++tick;
          continue;
        }
        let index = slots.indexOf(undefined);
        if (index === -1) {
          index = slots.reduce((oldest, slot, i) => (slot!.used < slots[oldest]!.used ? i : oldest), 0);
          change.evicted.push(qualifiedName(slots[index]!.tool));
        }
        slots[index] = { tool, used: ++tick };
        change.activated.push({ name, slot: index + 1, server: tool.server, trusted: tool.trusted });
      }
      if (change.activated.length > 0 || change.deactivated.length > 0) publish();
      return change;
    },
    async call(qualified, args, signal) {
      const tool = await lookup(qualified, signal);
      if (tool === undefined) return { content: `No MCP tool "${qualified}". Call LoadMcpTools to list them.`, isError: true, outsideSources: [] };
      const index = slotOf(qualified);
      if (index !== -1) slots[index]!.used = ++tick;
      count(tool);
      const result = await port.call(tool.server, tool.name, args, signal);
      // The server's text (a result, or its stderr) is an outsider's unless the repository trusts the server.
      const outsideSources = tool.trusted ? [] : [mcpSource(tool.server)];
      if (result.unavailable !== undefined) return { content: renderMcpFailure(result.unavailable), isError: true, outsideSources };
      const fenced = fenceUntrusted("mcp_result", result.content === "" ? "(no content)" : result.content, { server: tool.server, tool: tool.name });
      return { content: fenced, ...(result.isError ? { isError: true } : {}), outsideSources };
    },
    async decide(qualified) {
      const tool = await lookup(qualified, new AbortController().signal);
      if (tool === undefined || tool.trusted) return { action: "allow" };
      return { action: "ask", reason: `it calls ${qualified} on the repository's MCP server "${tool.server}"`, approvalKey: `mcp:${qualified}` };
    },
    usage: () => [...calls].map(([server, tools]) => ({ server, tools: [...tools].map(([name, n]) => ({ name, calls: n })) })),
  };
  return gateway;
}
