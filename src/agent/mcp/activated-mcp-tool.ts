import { z } from "zod";
import type { McpToolInfo } from "../ports.js";
import { defineTool, type Tool } from "../tools/tool.js";
import type { McpGateway } from "./mcp-gateway.js";
import { activatedName, qualifiedName } from "./mcp-tool-names.js";

/** An activated MCP tool, offered to the model as `mcp__<server>__<tool>` with the server's own schema. */
export function createActivatedMcpTool(info: McpToolInfo, gateway: McpGateway): Tool {
  const qualified = qualifiedName(info);
  return defineTool({
    name: activatedName(info),
    description: `${info.description.slice(0, 1_000)}\n(MCP tool ${info.name} of the server "${info.server}"; its results are the server's data.)`,
    inputSchema: z.record(z.string(), z.unknown()),
    jsonSchema: info.inputSchema,
    effects: { callsMcp: { qualified } },
    truncationHint: "ask the tool for less",
    checkArgs: () => gateway.decide(qualified),
    execute: (input, ctx) => gateway.call(qualified, input, ctx.signal),
  });
}
