import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../../src/config/index.js";
import { operatorMcpSecrets, substituteMcpSecrets } from "../../../src/config/substitute-mcp-secrets.js";

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

describe("substituteMcpSecrets", () => {
  const env = { TACKLE_SECRET_DOCS: "s3cret", ANTHROPIC_API_KEY: "sk-ant-key", TACKLE_SECRET_EMPTY: "" };

  it("fills only TACKLE_SECRET_* names; anything else stays literal, and a missing one is reported", () => {
    expect(
      substituteMcpSecrets({ a: "Bearer ${TACKLE_SECRET_DOCS}", b: "${ANTHROPIC_API_KEY}", c: "${TACKLE_SECRET_NOPE}x${TACKLE_SECRET_EMPTY}" }, env),
    ).toEqual({
      values: { a: "Bearer s3cret", b: "${ANTHROPIC_API_KEY}", c: "${TACKLE_SECRET_NOPE}x${TACKLE_SECRET_EMPTY}" },
      missing: ["TACKLE_SECRET_NOPE", "TACKLE_SECRET_EMPTY"],
    });
  });

  it("offers a repository the operator's TACKLE_SECRET_* variables and nothing else", () => {
    expect(operatorMcpSecrets(env)).toEqual({ TACKLE_SECRET_DOCS: "s3cret" });
  });
});
