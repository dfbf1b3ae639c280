/**
 * Every outbound HTTP request to a destination untrusted input chose goes through one client with
 * limits (src/net/create-http-client.ts, whose socket is opened in send-limited-request.ts). This reads
 * every source file under src/ for the other ways to send one: the global fetch, http(s).request and
 * .get, http2.connect, undici, raw sockets, and the MCP SDK's HTTP transports (whose default is the
 * global fetch). The exceptions talk to endpoints the operator configured, never to one a repository
 * or the model names; each is listed with its reason, and a listed file that no longer needs it fails too.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve("src");

/** The one place that opens sockets for outbound requests. */
const CHOKEPOINT = "net/send-limited-request.ts";

/** Files allowed to call the global fetch, and why. */
const FETCH_EXCEPTIONS: Record<string, string> = {
  "agent/capped-model-fetch.ts":
    "every model client's one fetch (the Anthropic, Bedrock and Vertex SDKs', the OpenAI-compatible client's): the operator's model endpoint, each response capped",
  "main/check-model-provider.ts": "`tackle doctor` probing the operator's model server (OPENAI_BASE_URL)",
  "main/action-github-access.ts": "the Action's own GitHub (GITHUB_API_URL, GITHUB_SERVER_URL of the runner), as Octokit would",
};

/** Files that import node:http as a value only to serve (createServer), never to send. */
const SERVERS = ["main/server.ts", "main/setup.ts", "web/health-server.ts"];

/** Where the MCP SDK's HTTP transports may be built: with the job's client as their fetch. */
const MCP_TRANSPORT_HOME = "net/create-mcp-port.ts";

const RULES: Array<{ what: string; pattern: RegExp; allowed: readonly string[] }> = [
  {
    what: "node:http, node:https or node:http2 as a value",
    pattern:
      /^\s*import\s+(?!type\b)[^;]*from\s*["'](?:node:)?https?2?["']|require\(\s*["'](?:node:)?https?2?["']\s*\)|import\(\s*["'](?:node:)?https?2?["']\s*\)/m,
    allowed: [CHOKEPOINT, ...SERVERS],
  },
  { what: "http(s).request/.get or http2.connect", pattern: /\bhttps?2?\s*\.\s*(?:request|get|connect)\s*\(/, allowed: [] },
  { what: "request or get imported from node:http(s)", pattern: /import\s*\{[^}]*\b(?:request|get)\b[^}]*\}\s*from\s*["'](?:node:)?https?["']/, allowed: [] },
  { what: "undici", pattern: /from\s*["']undici["']|require\(\s*["']undici["']\s*\)/, allowed: [] },
  { what: "a raw socket (net/tls connect)", pattern: /\b(?:net|tls)\s*\.\s*(?:connect|createConnection)\s*\(|new\s+(?:net\.)?Socket\s*\(/, allowed: [] },
  { what: "globalThis.fetch", pattern: /\bglobalThis\s*\.\s*fetch\b/, allowed: [] },
  {
    what: "an MCP SDK HTTP transport",
    pattern: /\bnew\s+(?:StreamableHTTPClientTransport|SSEClientTransport|WebSocketClientTransport)\s*\(/,
    allowed: [MCP_TRANSPORT_HOME],
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(?:ts|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Code without its comment lines (doc comments, line comments), so a comment that names fetch does not count. */
function code(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*(?:\/\/|\/\*|\*)/.test(line))
    .join("\n");
}

/**
 * Calls of the global fetch: `fetch(` not preceded by `.` or a name character, less method and
 * function definitions and interface members. A file that declares its own function named fetch
 * (git fetch, say) shadows the global there, and its calls are its own.
 */
function globalFetchCalls(text: string): string[] {
  if (/\bfunction\s+fetch\s*\(/.test(text)) return [];
  return text.split("\n").filter((line) => {
    if (!/(?<![\w.$])fetch\s*\(/.test(line)) return false;
    const definition = /^\s*(?:async\s+)?fetch\s*\([^)]*\)\s*(?::[^{;]+)?[{;]\s*$/.test(line) || /^\s*fetch\s*\(.*\)\s*:\s*.+;\s*$/.test(line);
    return !definition;
  });
}

const files = sourceFiles(SRC).map((file) => ({ name: path.relative(SRC, file).split(path.sep).join("/"), text: code(readFileSync(file, "utf8")) }));

describe("outbound HTTP goes through the limited client", () => {
  it("finds the source files", () => {
    expect(files.some((file) => file.name === CHOKEPOINT)).toBe(true);
    expect(files.length).toBeGreaterThan(50);
  });

  it("calls the global fetch only in the listed files, each of which still does", () => {
    const calling = files.filter((file) => globalFetchCalls(file.text).length > 0).map((file) => file.name);
    expect(calling.sort()).toEqual(Object.keys(FETCH_EXCEPTIONS).sort());
  });

  for (const rule of RULES) {
    it(`uses ${rule.what} only in ${rule.allowed.length === 0 ? "no file" : rule.allowed.join(", ")}`, () => {
      const using = files.filter((file) => rule.pattern.test(file.text)).map((file) => file.name);
      expect(using.sort()).toEqual([...rule.allowed].sort());
    });
  }

  it("counts a fetch hidden from it as a failure (the check itself works)", () => {
    expect(globalFetchCalls('const r = await fetch(url, { method: "POST" });')).toHaveLength(1);
    expect(globalFetchCalls("  async fetch(text, signal) {")).toHaveLength(0);
    expect(globalFetchCalls("  fetch(url: string, signal: AbortSignal): Promise<WebPage>;")).toHaveLength(0);
    expect(globalFetchCalls("await port.fetch(url, signal);")).toHaveLength(0);
    expect(RULES[0]!.pattern.test('import https from "node:https";')).toBe(true);
    expect(RULES[0]!.pattern.test('import type { IncomingMessage } from "node:http";')).toBe(false);
    expect(RULES[1]!.pattern.test("https.request(url, options)")).toBe(true);
    expect(RULES.at(-1)!.pattern.test("new StreamableHTTPClientTransport(new URL(x))")).toBe(true);
  });
});
