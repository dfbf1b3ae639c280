import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../../src/config/index.js";

describe("mcp_servers in the repo config", () => {
  it("reads HTTP and stdio servers, trusted defaulting to false", () => {
    const parsed = parseRepoConfig(
      "mcp_servers:\n  docs:\n    url: https://mcp.example.com/mcp\n    headers: {Authorization: 'Bearer ${TACKLE_SECRET_DOCS}'}\n  lint:\n    command: [node, tools/mcp.js]\n    env: {LEVEL: strict}\n    trusted: true\n",
    );
    expect(parsed.ok && parsed.config.mcp_servers).toEqual({
      docs: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${TACKLE_SECRET_DOCS}" }, trusted: false },
      lint: { command: ["node", "tools/mcp.js"], env: { LEVEL: "strict" }, trusted: true },
    });
  });

  it("names a server that is neither kind, and a URL that is not http(s), with their lines", () => {
    expect(parseRepoConfig("mcp_servers:\n  docs:\n    endpoint: x\n")).toEqual({
      ok: false,
      problems: ["`mcp_servers.docs`: expected `{url: http(s)://…, headers?, trusted?}` or `{command: [argv…], env?, trusted?}`, got a mapping (line 3)"],
    });
    expect(parseRepoConfig("mcp_servers:\n  docs:\n    url: ftp://x\n")).toEqual({
      ok: false,
      problems: ['`mcp_servers.docs.url`: Invalid URL, got "ftp://x" (line 3)'],
    });
  });
});
