// A stdio MCP server for the tests, run inside the job's sandbox like a repository's installed server:
// plain Node with builtins only (the sandbox has none of Tackle's node_modules), newline-delimited
// JSON-RPC on stdin and stdout. Tools: tool_01…tool_12 echo their arguments; `env` reports its
// GREETING variable and working directory; `crash` writes to stderr and exits with code 7 without
// answering. Its arguments (a marker) are ignored, so a test can find its processes by them.
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";

const ECHO_TOOLS = Array.from({ length: 12 }, (_, i) => `tool_${String(i + 1).padStart(2, "0")}`);

const tools = [
  ...ECHO_TOOLS.map((name) => ({
    name,
    description: `Echoes its input (${name}).`,
    inputSchema: { type: "object", properties: { text: { type: "string", description: "what to echo" } }, required: ["text"] },
  })),
  { name: "env", description: "Reports GREETING and the working directory.", inputSchema: { type: "object", properties: {} } },
  { name: "crash", description: "Exits with code 7 mid-call.", inputSchema: { type: "object", properties: {} } },
];

const send = (message) => writeSync(1, `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const text = (value) => ({ content: [{ type: "text", text: value }] });

function callTool(name, args) {
  if (name === "crash") {
    // Synchronous, so it is written before the process is gone.
    writeSync(2, "fake-stdio-server: crashing on purpose (the crash tool)\n");
    process.exit(7);
  }
  if (name === "env") return text(`GREETING=${process.env.GREETING ?? "(unset)"} cwd=${process.cwd()}`);
  if (ECHO_TOOLS.includes(name)) return text(`${name} got ${JSON.stringify(args ?? {})}`);
  return { ...text(`no tool ${name}`), isError: true };
}

function answer(request) {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "fake-stdio-server", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools };
    case "tools/call":
      return callTool(request.params?.name, request.params?.arguments);
    default:
      return undefined;
  }
}

writeSync(2, "fake-stdio-server: ready\n");
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  // Notifications (notifications/initialized, cancellations) need no answer.
  if (message.id === undefined) return;
  const result = answer(message);
  if (result === undefined) send({ id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  else send({ id: message.id, result });
});
lines.on("close", () => process.exit(0));
