import type { McpServerFailure } from "../ports.js";
import { fenceUntrusted } from "../prompt/fence-untrusted.js";

/** A server the job cannot use, for the model: the host's reason, then what the server last wrote on stderr, fenced as its data. */
export function renderMcpFailure(failure: McpServerFailure): string {
  const reason = `MCP server "${failure.server}" is unavailable: ${failure.error}`;
  if (failure.stderr === undefined || failure.stderr === "") return reason;
  return `${reason}\nThe last it wrote on stderr:\n${fenceUntrusted("mcp_stderr", failure.stderr, { server: failure.server })}`;
}
