import type { McpToolInfo } from "../ports.js";
import { offeredToolName } from "../tools/canonical-action.js";

/** `<server>__<tool>`, the name LoadMcpTools lists and CallMcpTool takes. */
export function qualifiedName(tool: Pick<McpToolInfo, "server" | "name">): string {
  return `${tool.server}__${tool.name}`;
}

/** `mcp__<server>__<tool>` in the API's name pattern: letters, digits, `_` and `-`, at most 64. */
export function activatedName(tool: Pick<McpToolInfo, "server" | "name">): string {
  return offeredToolName(`mcp__${qualifiedName(tool)}`);
}

/** How an MCP server is named as a source of outside text (what a memory write is then asked for). */
export function mcpSource(server: string): string {
  return `MCP server "${server}"`;
}
