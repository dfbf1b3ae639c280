// The JSON value cap of MCP answers (red-net: `maxJsonValues`, net/json-value-meter.ts) was put on the
// HTTP client only. A repository's stdio MCP servers (at most 20, run in the job's sandbox) speak
// newline-delimited JSON on stdout, read by the SDK's ReadBuffer, whose only cap is 10 MB per line:
// a server answering `initialize` with a capability (`logging`, any object) holding 10 MB of `{},{},…` is 3.5 million objects,
// about 200 MB of heap, which the SDK keeps (the server's capabilities) for the job's life; twenty
// such servers are 4 GB, past the Tackle process's heap limit, killing every job of the worker.
//
// Fixed: the stdio transport counts each line's JSON values with the same meter before the SDK parses
// it (createJsonValueMeter("line")), and a server whose line passes MAX_ANSWER_VALUES is closed as one
// that broke a limit, as an HTTP server is.
//
// Two servers here, not twenty, so the unfixed code fails the bound instead of killing the test's
// process. Measured without a clock: the heap after a collection, before and after discovery.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createDestinationRules, createHttpClient, createMcpPort, type McpServerSpec } from "../../src/net/index.js";
import type { StartedProcess, StartOptions } from "../../src/agent/ports.js";
import { literalValues } from "../integration/agent/helpers.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;
const SERVERS = 2;
const BOUND = 64 * MiB;
const noHttp = createHttpClient({ rules: createDestinationRules([]) });

/**
 * A stdio server in this process: it reads the client's lines from stdin and answers `initialize`
 * with `head{},{},…tail` of about `bytes` bytes (under the ReadBuffer's 10 MB), 64 KiB at a time,
 * each piece after the last was taken, so the fake holds next to nothing itself.
 */
function floodingServer(bytes: number) {
  return async (_argv: readonly string[], options: StartOptions): Promise<StartedProcess> => {
    let stopped = false;
    let finish!: (value: { exitCode: number | null; killed: boolean }) => void;
    const exited = new Promise<{ exitCode: number | null; killed: boolean }>((resolve) => (finish = resolve));
    const answer = async (id: unknown, protocolVersion: unknown) => {
      const start = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"protocolVersion":${JSON.stringify(protocolVersion)},"serverInfo":{"name":"x","version":"1"},"capabilities":{"tools":{},"logging":{"p":[{}`;
      const end = "]}}}}\n";
      let left = Math.floor((bytes - start.length - end.length) / 3);
      options.onStdout(Buffer.from(start));
      while (left > 0 && !stopped) {
        const count = Math.min(left, 21_000);
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (stopped) return;
        options.onStdout(Buffer.from(",{}".repeat(count)));
        left -= count;
      }
      if (!stopped) options.onStdout(Buffer.from(end));
    };
    let pending = "";
    const stdin = new Writable({
      write(chunk: Buffer, _encoding, done) {
        pending += chunk.toString("utf8");
        for (let at = pending.indexOf("\n"); at >= 0; at = pending.indexOf("\n")) {
          const message = JSON.parse(pending.slice(0, at)) as { id?: unknown; method?: string; params?: { protocolVersion?: unknown } };
          pending = pending.slice(at + 1);
          if (message.method === "initialize") void answer(message.id, message.params?.protocolVersion);
          else if (message.method === "tools/list")
            options.onStdout(Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { tools: [] } })}\n`));
        }
        done();
      },
    });
    return {
      stdin,
      exited,
      async stop() {
        stopped = true;
        finish({ exitCode: null, killed: true });
      },
    };
  };
}

describe("a repository's stdio MCP servers answering with 10 MB of tiny JSON values", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  it("keeps the heap bounded when the flood is in the initialize answer the SDK keeps", async () => {
    const specs: McpServerSpec[] = Array.from({ length: SERVERS }, (_, i) => ({
      name: `s${i}`,
      kind: "stdio",
      command: ["node", "server.mjs"],
      env: literalValues(),
      trusted: false,
    }));
    const port = createMcpPort({
      servers: specs,
      http: noHttp,
      start: floodingServer(10 * 1000 * 1000 - 1024),
      connectTimeoutMs: 3_600_000,
      callTimeoutMs: 3_600_000,
    });
    closers.push(() => port.close());
    gc();
    const before = process.memoryUsage().heapUsed;
    const { failures } = await port.discover(new AbortController().signal);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(BOUND);
    expect(failures).toHaveLength(SERVERS);
    expect(failures[0]!.error).toContain("100000 JSON values");
  });
});
