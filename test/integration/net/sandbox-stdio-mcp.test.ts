/**
 * Stdio MCP servers in the job's sandbox: the SDK client over createSandboxStdioTransport, and
 * createMcpPort starting the server through Sandbox.start, with the test's own server script
 * (test/fakes/stdio-mcp-server.mjs) copied into the worktree as a repository would install one.
 * Under bubblewrap with the job's namespace where it works, and with the sandbox off.
 */
import { randomUUID } from "node:crypto";
import { copyFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDestinationRules, createHttpClient, createMcpPort, type McpServerSpec } from "../../../src/net/index.js";
import { createSandboxStdioTransport } from "../../../src/net/create-sandbox-stdio-transport.js";
import { createSandboxExec, detectSandbox, type Sandbox, type SandboxMode } from "../../../src/workspace/index.js";
import { literalValues } from "../agent/helpers.js";
import { processesMatching, removeDir, tempDir } from "../workspace/helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];
const SERVER_SCRIPT = path.resolve("test/fakes/stdio-mcp-server.mjs");
const ECHO_TOOLS = Array.from({ length: 12 }, (_, i) => `tool_${String(i + 1).padStart(2, "0")}`);
/** No HTTP server in these tests: a client whose rules refuse everything. */
const noHttp = createHttpClient({ rules: createDestinationRules([]) });

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>).map((block) => block.text).join("\n");

describe.each(modes)("stdio MCP servers in the job's sandbox (%s)", (mode) => {
  let root: string;
  let tmp: string;
  let sandbox: Sandbox;
  let marker: string;

  beforeEach(async () => {
    root = tempDir(`mcp-stdio-${mode}`, { sandboxWritable: true });
    tmp = tempDir(`mcp-stdio-tmp-${mode}`, { sandboxWritable: true });
    await mkdir(path.join(root, "tools"));
    await copyFile(SERVER_SCRIPT, path.join(root, "tools", "mcp-server.mjs"));
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tmp });
    marker = `--marker=${randomUUID()}`;
  });
  afterEach(async () => {
    await sandbox.dispose();
    removeDir(root);
    removeDir(tmp);
  });

  const local = (command = ["node", "tools/mcp-server.mjs", marker]): McpServerSpec => ({
    name: "local",
    kind: "stdio",
    command,
    env: literalValues({ GREETING: "hello from the config" }),
    trusted: true,
  });

  it("the SDK client lists and calls a server's tools over the transport, and sees it crash", async () => {
    const transport = createSandboxStdioTransport({ start: sandbox.start!, argv: ["node", "tools/mcp-server.mjs", marker], env: { GREETING: "hi" } });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport, { timeout: 30_000 });

    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toEqual([...ECHO_TOOLS, "env", "crash"]);
    expect(textOf(await client.callTool({ name: "tool_03", arguments: { text: "hi" } }))).toBe('tool_03 got {"text":"hi"}');
    // The spec's env over the sandbox's, and the worktree root as cwd.
    expect(textOf(await client.callTool({ name: "env", arguments: {} }))).toBe(`GREETING=hi cwd=${root}`);
    expect(transport.exit()).toBeUndefined();
    // What it wrote on stderr stayed apart from the protocol.
    expect(transport.stderrTail()).toBe("fake-stdio-server: ready");

    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toThrow(/Connection closed/);
    expect(transport.exit()).toEqual({ exitCode: 7, stopped: false });
    expect(transport.stderrTail()).toContain("fake-stdio-server: crashing on purpose (the crash tool)");
    expect(sandbox.running).toBe(0);
    await expect(client.callTool({ name: "tool_01", arguments: { text: "again" } })).rejects.toThrow(/Not connected/);
  });

  it("createMcpPort starts the server at discovery, reports a crash to the call in flight and to later ones, and lists it as failed", async () => {
    const port = createMcpPort({ servers: [local()], http: noHttp, start: sandbox.start! });
    const signal = new AbortController().signal;
    try {
      const found = await port.discover(signal);
      expect(found.failures).toEqual([]);
      expect(found.tools.map((tool) => `${tool.server}__${tool.name}`)).toEqual([...ECHO_TOOLS.map((name) => `local__${name}`), "local__env", "local__crash"]);
      expect(found.tools[0]).toMatchObject({ trusted: true, inputSchema: { type: "object", required: ["text"] } });
      expect(sandbox.running).toBe(1);

      expect(await port.call("local", "tool_12", { text: "twelve" }, signal)).toEqual({ content: 'tool_12 got {"text":"twelve"}', isError: false });
      expect(await port.call("local", "env", {}, signal)).toEqual({ content: `GREETING=hello from the config cwd=${root}`, isError: false });

      const crashed = await port.call("local", "crash", {}, signal);
      expect(crashed.isError).toBe(true);
      expect(crashed.unavailable).toEqual({
        server: "local",
        error: "its process exited with code 7 during the call to crash and is not restarted",
        stderr: "fake-stdio-server: ready\nfake-stdio-server: crashing on purpose (the crash tool)",
      });
      const later = await port.call("local", "tool_01", { text: "after" }, signal);
      expect(later.unavailable).toEqual({ server: "local", error: "its process exited with code 7 earlier in this job and is not restarted" });
      // Not started again behind the model's back.
      expect(sandbox.running).toBe(0);

      const failure = {
        server: "local",
        error: "its process exited with code 7 mid-job and is not restarted",
        stderr: expect.stringContaining("crashing on purpose"),
      };
      expect(port.failures?.()).toEqual([failure]);
      expect((await port.discover(signal)).failures).toEqual([failure]);
    } finally {
      await port.close();
    }
    expect(processesMatching(marker)).toEqual([]);
  });

  it("close stops every server it started, and none is left", async () => {
    const port = createMcpPort({ servers: [local(), { ...local(), name: "second" }], http: noHttp, start: sandbox.start! });
    const found = await port.discover(new AbortController().signal);
    expect(found.tools).toHaveLength(28);
    expect(sandbox.running).toBe(2);
    expect(processesMatching(marker).length).toBeGreaterThan(0);
    await port.close();
    expect(sandbox.running).toBe(0);
    expect(processesMatching(marker)).toEqual([]);
    // Stopped by the host, not failed: nothing to report.
    expect(port.failures?.()).toEqual([]);
  });

  it("a server that cannot start is reported with its exit code and stderr, and the others still work", async () => {
    const port = createMcpPort({
      servers: [local(["node", "tools/not-installed.mjs", marker]), { ...local(), name: "good" }],
      http: noHttp,
      start: sandbox.start!,
    });
    try {
      const found = await port.discover(new AbortController().signal);
      expect(found.tools.every((tool) => tool.server === "good")).toBe(true);
      expect(found.tools).toHaveLength(14);
      expect(found.failures).toEqual([
        { server: "local", error: "its process exited with code 1 before it answered", stderr: expect.stringContaining("Cannot find module") },
      ]);
      expect(found.failures[0]?.stderr).toContain("tools/not-installed.mjs");
    } finally {
      await port.close();
    }
  });

  it("without a sandbox that can hold a process, a stdio server is reported as failed with the reason", async () => {
    const port = createMcpPort({ servers: [local()], http: noHttp });
    const found = await port.discover(new AbortController().signal);
    expect(found.tools).toEqual([]);
    expect(found.failures).toEqual([
      { server: "local", error: "stdio MCP servers run in the job's sandbox, and this run has none that can hold a process; use an HTTP server" },
    ]);
    await expect(port.call("local", "tool_01", { text: "x" }, new AbortController().signal)).rejects.toThrow(
      'MCP server "local" failed the call to tool_01: stdio MCP servers run in the job',
    );
    await port.close();
  });
});
