import { z } from "zod";
import { mcpSource, qualifiedName } from "../mcp/mcp-tool-names.js";
import { renderMcpFailure } from "../mcp/render-mcp-failure.js";
import { defineTool } from "./tool.js";

/** Tools listed in one answer; a query narrows a longer list. */
const MAX_LISTED = 60;

const inputSchema = z.object({
  query: z.string().optional().describe("Words to look for in the tools' names and descriptions. Omit it to list them all."),
  activate: z.array(z.string()).optional().describe("Tools (server__tool) to offer as first-class tools from the next turn; at most 10 at once."),
  deactivate: z.array(z.string()).optional().describe("Activated tools to take out of the list."),
});

export const loadMcpToolsTool = defineTool({
  name: "LoadMcpTools",
  description:
    "Lists the tools of the repository's MCP servers, and activates up to 10 of them as first-class tools (mcp__server__tool) or deactivates them. Activate the few you will call often; CallMcpTool calls any listed tool without activating it.",
  inputSchema,
  effects: { session: true },
  async execute(input, ctx) {
    if (ctx.mcp === undefined) return { content: "This repository has no MCP servers.", isError: true, outsideSources: [] };
    const change = await ctx.mcp.change({ activate: input.activate ?? [], deactivate: input.deactivate ?? [] }, ctx.signal);
    const { tools, failures } = await ctx.mcp.discover(ctx.signal);
    const words = (input.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const matching = tools.filter((tool) => words.every((word) => `${qualifiedName(tool)} ${tool.description}`.toLowerCase().includes(word)));
    const lines = matching.slice(0, MAX_LISTED).map((tool) => {
      const properties = Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
      const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
      const inputs = properties.map((name) => (required.has(name) ? name : `${name}?`)).join(", ");
      const active = ctx.mcp?.isActive(qualifiedName(tool)) ? " [active]" : "";
      return `- ${qualifiedName(tool)}${active}: ${tool.description.replace(/\s+/g, " ").slice(0, 200)} (inputs: ${inputs === "" ? "none" : inputs})`;
    });
    const parts: string[] = [];
    for (const { name, slot } of change.activated) parts.push(`Activated ${name} (slot ${slot}): offered as a tool from your next turn.`);
    for (const name of change.evicted) parts.push(`Evicted ${name}, the least recently used of the 10 active tools, to make room.`);
    for (const name of change.deactivated) parts.push(`Deactivated ${name}.`);
    for (const name of change.unknown) parts.push(`No tool named ${name}: use a name from the list.`);
    parts.push(matching.length === 0 ? "No MCP tools match." : `${matching.length} MCP tool${matching.length === 1 ? "" : "s"}:\n${lines.join("\n")}`);
    if (matching.length > MAX_LISTED) parts.push(`(${matching.length - MAX_LISTED} more: narrow the query)`);
    for (const failure of failures) parts.push(renderMcpFailure(failure));
    // Descriptions and stderr are the servers' text: an untrusted server's, or a failed one's, is an outsider's.
    // So is an activated tool's description and schema, which the model reads in its tool list even when
    // this listing left the tool out (a query, the cut).
    const untrusted = [...matching.slice(0, MAX_LISTED).filter((tool) => !tool.trusted), ...change.activated.filter((tool) => !tool.trusted), ...failures].map(
      (item) => mcpSource(item.server),
    );
    return { content: parts.join("\n"), ...(change.unknown.length > 0 ? { isError: true } : {}), outsideSources: [...new Set(untrusted)] };
  },
});
