import { parseRepoConfig } from "../../../src/config/repo-config.js";

/** `.github/tackle.yml` with one stdio MCP server given `env`, parsed as the worker parses it. */
export function mcpServerEnvConfig(env: Record<string, string>): ReturnType<typeof parseRepoConfig> {
  return parseRepoConfig(
    [
      "mcp_servers:",
      "  tool:",
      "    command: [node, server.js]",
      "    env:",
      ...Object.entries(env).map(([key, value]) => `      ${key}: ${JSON.stringify(value)}`),
      "",
    ].join("\n"),
  );
}
