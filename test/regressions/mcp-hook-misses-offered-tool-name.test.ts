// An MCP tool is offered to the model (and shown in transcripts) under its API-safe name: characters other
// than letters, digits, `_` and `-` become `_`, and the name is cut at 64. The hooks matched only the raw
// `mcp__<server>__<tool>`, so a repository's deny hook written for the name it sees (`mcp__docs__search_v2`
// for the tool `search.v2`, or a long tool's 64-character name) never fired, for the activated tool and for
// CallMcpTool alike. A matcher now runs on both: the canonical name and the name the tool is offered under.
import { describe, expect, it } from "vitest";
import { createActivatedMcpTool } from "../../src/agent/mcp/activated-mcp-tool.js";
import { createMcpGateway } from "../../src/agent/mcp/mcp-gateway.js";
import { callMcpToolTool } from "../../src/agent/tools/call-mcp-tool.js";
import { canonicalAction } from "../../src/agent/tools/canonical-action.js";
import { createToolHooks } from "../../src/agent/tools/tool-hooks.js";
import { createDestinationRules, createHttpClient, createMcpPort } from "../../src/net/index.js";

const gateway = createMcpGateway(createMcpPort({ servers: [], http: createHttpClient({ rules: createDestinationRules([]) }) }), () => undefined);
const info = (name: string) => ({ server: "docs", name, description: "d", inputSchema: { type: "object" as const }, trusted: false });
const deny = (matcher: string) => createToolHooks({ PreToolUse: [{ matcher, command: "exit 2" }], PostToolUse: [] });
const LONG = `delete_${"x".repeat(70)}`;

describe("an MCP deny hook written for the name the model sees", () => {
  it.each([
    ["activated search.v2", () => canonicalAction(createActivatedMcpTool(info("search.v2"), gateway), {}), "mcp__docs__search_v2"],
    ["CallMcpTool search.v2", () => canonicalAction(callMcpToolTool, { tool: "docs__search.v2", arguments: {} }), "mcp__docs__search_v2"],
    ["activated, a name cut at 64", () => canonicalAction(createActivatedMcpTool(info(LONG), gateway), {}), `mcp__docs__${LONG}`.slice(0, 64)],
  ])("applies to %s", (_label, action, matcher) => {
    const tool = createActivatedMcpTool(info(_label.includes("64") ? LONG : "search.v2"), gateway);
    // The matcher is the name the tool is offered under.
    expect(tool.name).toBe(matcher);
    expect(deny(matcher).applies(action().name)).toBe(true);
  });

  it("still matches the canonical name, and not another tool's", () => {
    const action = canonicalAction(callMcpToolTool, { tool: "docs__search.v2", arguments: {} });
    expect(deny("mcp__docs__search\\.v2").applies(action.name)).toBe(true);
    expect(deny("mcp__docs__search_v3").applies(action.name)).toBe(false);
  });
});
