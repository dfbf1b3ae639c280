import { resolveScopedSecrets, type OperatorSecrets } from "../config/index.js";
import type { McpServerConfig } from "../config/repo-config.js";
import type { RepoRef } from "../github/index.js";
import type { McpServerSpec } from "../net/index.js";

/**
 * The repo config's MCP servers with `${TACKLE_SECRET_*}` filled in through resolveScopedSecrets: a
 * stdio server's `env` for the repository (its process has no network), an HTTP server's `headers`
 * for the repository and its URL's host. Every problem of every server is returned at once.
 */
export function mcpServerSpecs(
  servers: Readonly<Record<string, McpServerConfig>>,
  repo: RepoRef,
  secrets: OperatorSecrets,
): { ok: true; specs: McpServerSpec[] } | { ok: false; problems: string[] } {
  const specs: McpServerSpec[] = [];
  const problems: string[] = [];
  const use = { repo: { owner: repo.owner, name: repo.name } };
  for (const [name, server] of Object.entries(servers)) {
    if ("url" in server) {
      const headers = resolveScopedSecrets(server.headers, { ...use, url: new URL(server.url), where: `mcp_servers.${name}.headers` }, secrets);
      if (headers.ok) specs.push({ name, kind: "http", url: server.url, headers: headers.values, trusted: server.trusted });
      else problems.push(...headers.problems);
    } else {
      const env = resolveScopedSecrets(server.env, { ...use, where: `mcp_servers.${name}.env` }, secrets);
      if (env.ok) specs.push({ name, kind: "stdio", command: server.command, env: env.values, trusted: server.trusted });
      else problems.push(...env.problems);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, specs };
}
