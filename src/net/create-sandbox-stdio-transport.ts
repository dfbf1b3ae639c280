import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StartedProcess, StartOptions } from "../agent/ports.js";
import { createJsonValueMeter } from "./json-value-meter.js";

/** ExecPort.start: a long-running process in the job's sandbox. */
export type StartProcess = (argv: readonly string[], options: StartOptions) => Promise<StartedProcess>;

export interface SandboxStdioTransportOptions {
  start: StartProcess;
  /** The server's command, run from the worktree root like Bash. */
  argv: readonly string[];
  /** The server's own environment, over the sandbox's (PATH, HOME, TMPDIR…). @defaultValue {} */
  env?: Record<string, string>;
  /** How much of the end of its stderr is kept to explain a failure. @defaultValue 4096 */
  stderrTailBytes?: number;
  /**
   * JSON values one line of its stdout (one message) may hold, counted before the SDK parses it: the
   * ReadBuffer's 10 MB of `{},` is 3.5 million objects, 200 MB of heap. @defaultValue 100 000
   */
  maxJsonValues?: number;
}

/** How the server's process ended. */
export interface ServerExit {
  /** null when a signal ended it. */
  exitCode: number | null;
  /** Ended by `close()`, not by itself. */
  stopped: boolean;
}

/** The SDK's Transport, plus what the host needs to explain a server that went away. */
export interface SandboxStdioTransport extends Transport {
  /** How the process ended; undefined while it runs (or before it started). */
  exit(): ServerExit | undefined;
  /** The end of what it wrote on stderr, as text. */
  stderrTail(): string;
  /** Why the transport closed the server for what it wrote (a line past a limit); undefined otherwise. */
  broken(): string | undefined;
}

/**
 * An MCP client transport over a process the job's sandbox holds (ExecPort.start): newline-delimited
 * JSON-RPC on its stdin and stdout, as the SDK's StdioClientTransport speaks it, but the process runs
 * under the sandbox's limits, on the job's loopback-only network, and dies with the workspace, instead
 * of being spawned on the host. What it prints is hostile input: its stdout goes through the SDK's
 * size-capped ReadBuffer and schema, and only a bounded tail of its stderr is kept.
 */
export function createSandboxStdioTransport(options: SandboxStdioTransportOptions): SandboxStdioTransport {
  const readBuffer = new ReadBuffer();
  const maxJsonValues = options.maxJsonValues ?? 100_000;
  const values = createJsonValueMeter("line");
  let broken: string | undefined;
  const stderr = createTail(options.stderrTailBytes ?? 4096);
  let launching: Promise<StartedProcess> | undefined;
  let started: StartedProcess | undefined;
  let ended: Promise<void> | undefined;
  let exit: ServerExit | undefined;
  let stopping = false;

  const receive = (chunk: Buffer): void => {
    if (broken !== undefined) return;
    if (values.push(chunk) > maxJsonValues) {
      broken = `a line of its stdout passed ${maxJsonValues} JSON values (maxJsonValues)`;
      readBuffer.clear();
      transport.onerror?.(new Error(broken));
      void transport.close();
      return;
    }
    try {
      readBuffer.append(chunk);
    } catch (error) {
      // A line past the buffer's cap: the server is not speaking the protocol.
      transport.onerror?.(error as Error);
      void transport.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = readBuffer.readMessage();
      } catch (error) {
        // One line that is not a JSON-RPC message (a stray log line): reported, and the next is read.
        transport.onerror?.(error as Error);
        continue;
      }
      if (message === null) break;
      transport.onmessage?.(message);
    }
  };

  const transport: SandboxStdioTransport = {
    async start() {
      if (launching !== undefined || stopping) throw new Error("this transport was already started");
      launching = options.start(options.argv, {
        env: options.env ?? {},
        stdin: true,
        separateStderr: true,
        onStdout: receive,
        onStderr: stderr.push,
      });
      started = await launching;
      ended = started.exited.then(
        ({ exitCode }) => {
          exit = { exitCode, stopped: stopping };
        },
        () => {
          exit = { exitCode: null, stopped: stopping };
        },
      );
      void ended.then(() => {
        readBuffer.clear();
        transport.onclose?.();
      });
    },
    send(message) {
      return new Promise<void>((resolve, reject) => {
        const stdin = started?.stdin;
        if (stdin === undefined || exit !== undefined || stopping) {
          reject(new Error("the MCP server's process is not running"));
          return;
        }
        // The callback also runs, with an error, when the pipe breaks before the write is flushed.
        stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
      });
    },
    async close() {
      stopping = true;
      // Closed while the sandbox was still starting it: it is stopped as soon as it exists.
      const running = await launching?.catch(() => undefined);
      if (running === undefined) {
        transport.onclose?.();
        return;
      }
      await running.stop();
      await ended;
    },
    exit: () => exit,
    stderrTail: () => stderr.text(),
    broken: () => broken,
  };
  return transport;
}

/** The last `max` bytes written, kept as whole chunks trimmed from the front. */
function createTail(max: number): { push(chunk: Buffer): void; text(): string } {
  let chunks: Buffer[] = [];
  let bytes = 0;
  return {
    push(chunk) {
      chunks.push(chunk);
      bytes += chunk.length;
      while (bytes - chunks[0]!.length >= max) bytes -= chunks.shift()!.length;
    },
    text() {
      const all = Buffer.concat(chunks);
      chunks = [all];
      return all
        .subarray(Math.max(0, all.length - max))
        .toString("utf8")
        .trim();
    },
  };
}
