import { readBody } from "./read-body.js";
/**
 * A fake Anthropic Messages API on 127.0.0.1 driven by a script of turns. It speaks the wire
 * format the real SDK expects (JSON messages, SSE streams, error bodies and retry headers) and
 * accounts tokens with the prompt-caching rules in compute-usage.ts.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { partialParse } from "@anthropic-ai/sdk/_vendor/partial-json-parser/parser.js";
import {
  computeUsage,
  countBreakpoints,
  countInputTokens,
  countTokens,
  createCacheState,
  MAX_CACHE_BREAKPOINTS,
  type CacheState,
  type ComputedUsage,
} from "./compute-usage.js";
import { messageStreamEvents, type StreamEvent } from "./message-stream-events.js";

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: unknown; id?: string }
  /**
   * A tool call cut off by max_tokens: the stream carries `partialJson` as sent so far (invalid
   * JSON), then ends the block, as the real API does. Use with stop_reason "max_tokens".
   */
  | { type: "tool_use"; name: string; partialJson: string; id?: string }
  /**
   * A complete tool call whose input the model wrote as malformed JSON (an unescaped quote, a missing
   * comma): the stream carries `rawInputJson` verbatim as input_json_delta pieces and ends normally
   * (stop_reason "tool_use"), as the real API does when the model's JSON is broken.
   */
  | { type: "tool_use"; name: string; rawInputJson: string; id?: string };

export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface ScriptedReply {
  content: ScriptedBlock[];
  /** @defaultValue "tool_use" when a tool_use block is present ("max_tokens" when one is partial), else "end_turn" */
  stop_reason?: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal";
  /** Overrides the computed usage fields. */
  usage?: Partial<ScriptedUsage>;
  /** Wait before answering, to simulate model latency. */
  delayMs?: number;
  /**
   * For stream requests: send this many SSE events, then reset the connection (no message_stop), as
   * a connection dropped mid-stream does.
   */
  cutAfterEvents?: number;
  /**
   * For stream requests: right after the first text block starts, text_delta events of 1 MiB of text
   * for it until this many bytes are written (each write once the socket took the last), as a server
   * that keeps sending does; the connection closing stops it. For clients' caps on a response.
   */
  floodBytes?: number;
}

export interface ScriptedError {
  error: { status: number; type?: string; message?: string };
  /** Seconds, sent as `retry-after` (the SDK honours it). */
  retryAfter?: number;
  /** Milliseconds, sent as `retry-after-ms` (the SDK prefers it; keeps retry tests fast). */
  retryAfterMs?: number;
  /** For stream requests: answer 200, start the message, then send an SSE `error` event. */
  midStream?: boolean;
}

export type ScriptedTurn = ScriptedReply | ScriptedError;
export type MessagesRequest = Record<string, unknown> & { model?: string; stream?: boolean; messages?: unknown[] };
export type ScriptedModel = ScriptedTurn[] | ((request: MessagesRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

export interface FakeAnthropicOptions {
  /** Accepted as `x-api-key` or `Authorization: Bearer`. @defaultValue "sk-ant-fake-key" */
  apiKey?: string;
  /** See CacheRules in compute-usage.ts. @defaultValue 1024 */
  minCacheableTokens?: number;
  /** Pause between SSE events, to observe streaming. @defaultValue 0 */
  chunkDelayMs?: number;
  /** Clock for cache TTLs. @defaultValue Date.now */
  now?: () => number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body. */
  body: MessagesRequest;
  /** Index of the script turn this request consumed; undefined when rejected before the script. */
  turn?: number;
  status: number;
  stream: boolean;
  usage?: ComputedUsage & { output_tokens: number };
  at: number;
  /** Bytes of a `floodBytes` reply written before it ended (or the connection closed). */
  flooded?: number;
}

export interface FakeAnthropic {
  /** Base URL for the SDK (`baseURL`) or ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly apiKey: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Error answers sent (scripted, validation, and "scripted model exhausted"). */
  readonly errors: Array<{ status: number; type: string; message: string; turn?: number }>;
  /** Requests that arrived after the script ran out. */
  exhausted(): number;
  /** Script turns consumed so far. */
  turnsUsed(): number;
  readonly cache: CacheState;
  /** ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL pointing at this fake, for processes under test. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const DEFAULT_MESSAGES: Record<string, string> = {
  overloaded_error: "Overloaded",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  api_error: "Internal server error",
  invalid_request_error: "Invalid request",
};

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export function anthropicId(prefix: "msg" | "toolu" | "req"): string {
  return `${prefix}_01${[...randomBytes(22)].map((b) => BASE62[b % 62]).join("")}`;
}

export async function startFakeAnthropic(script: ScriptedModel, options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? "sk-ant-fake-key";
  const cache = createCacheState(options.now);
  const requests: RecordedRequest[] = [];
  const errors: FakeAnthropic["errors"] = [];
  let turns = 0;
  let exhausted = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, "api_error", `fake Anthropic crashed: ${String(error)}`);
      else res.end();
    });
  });

  function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}, turn?: number) {
    errors.push({ status, type, message, ...(turn === undefined ? {} : { turn }) });
    const requestId = anthropicId("req");
    res.writeHead(status, { "content-type": "application/json", "request-id": requestId, ...headers });
    res.end(JSON.stringify({ type: "error", error: { type, message }, request_id: requestId }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const raw = await readBody(req);
    let body: MessagesRequest = {};
    const record: RecordedRequest = { method: req.method ?? "GET", path: url.pathname, headers: req.headers, body, status: 0, stream: false, at: Date.now() };
    requests.push(record);
    const reject = (status: number, message: string, headers: Record<string, string> = {}) => {
      record.status = status;
      sendError(res, status, ERROR_TYPES[status] ?? "api_error", message, headers);
    };

    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (req.headers["x-api-key"] !== apiKey && bearer !== apiKey) return reject(401, "invalid x-api-key");
    const isMessages = url.pathname === "/v1/messages";
    const isCount = url.pathname === "/v1/messages/count_tokens";
    if (req.method !== "POST" || (!isMessages && !isCount)) return reject(404, "Not Found");
    if (!req.headers["anthropic-version"]) return reject(400, "anthropic-version: header is required");
    try {
      body = JSON.parse(raw.toString("utf8")) as MessagesRequest;
      record.body = body;
    } catch {
      return reject(400, "There was an error parsing the body of your request");
    }
    const invalid = validate(body, isCount);
    if (invalid) return reject(400, invalid);
    if (isCount) {
      record.status = 200;
      res.writeHead(200, { "content-type": "application/json", "request-id": anthropicId("req") });
      return res.end(JSON.stringify({ input_tokens: countInputTokens(body) }));
    }

    record.stream = body.stream === true;
    const turnIndex = turns++;
    record.turn = turnIndex;
    const turn = Array.isArray(script) ? script[turnIndex] : await script(body, turnIndex);
    if (!turn) {
      exhausted += 1;
      record.status = 500;
      // x-should-retry: false stops the SDK from retrying into the same empty script.
      return sendError(res, 500, "api_error", "scripted model exhausted", { "x-should-retry": "false" }, turnIndex);
    }
    if ("error" in turn && !(turn.midStream && record.stream)) {
      const status = turn.error.status;
      const type = turn.error.type ?? ERROR_TYPES[status] ?? "api_error";
      const headers: Record<string, string> = {};
      if (turn.retryAfter !== undefined) headers["retry-after"] = String(turn.retryAfter);
      if (turn.retryAfterMs !== undefined) headers["retry-after-ms"] = String(turn.retryAfterMs);
      record.status = status;
      return sendError(res, status, type, turn.error.message ?? DEFAULT_MESSAGES[type] ?? "Error", headers, turnIndex);
    }
    const reply: ScriptedReply = "error" in turn ? { content: [] } : turn;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const message = buildMessage(body, reply, computeUsage(body, cache, { minCacheableTokens: options.minCacheableTokens ?? 1024 }));
    record.usage = message.usage;
    record.status = 200;
    const requestId = anthropicId("req");
    if (!record.stream) {
      res.writeHead(200, { "content-type": "application/json", "request-id": requestId });
      return res.end(JSON.stringify(message));
    }
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": requestId });
    const midStreamError = "error" in turn ? turn : undefined;
    let sent = 0;
    for (const event of messageStreamEvents(message, partialJsonOf(reply))) {
      if (sent++ === reply.cutAfterEvents) {
        // Let what was written reach the client first: a reset before the headers would be a connection error.
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.destroy();
        return;
      }
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      if (reply.floodBytes !== undefined && record.flooded === undefined && isTextStart(event)) {
        await flood(res, event.index, reply.floodBytes, record);
        if (res.destroyed) return;
      }
      if (midStreamError && event.type === "message_start") {
        const type = midStreamError.error.type ?? ERROR_TYPES[midStreamError.error.status] ?? "api_error";
        const text = midStreamError.error.message ?? DEFAULT_MESSAGES[type] ?? "Error";
        errors.push({ status: 200, type, message: text, turn: turnIndex });
        res.write(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type, message: text } })}\n\n`);
        break;
      }
      if (options.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiKey,
    env: () => ({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: url }),
    requests,
    errors,
    exhausted: () => exhausted,
    turnsUsed: () => turns,
    cache,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The checks the real API makes before running the model, with its messages. */
function validate(body: MessagesRequest, isCount: boolean): string | undefined {
  if (typeof body.model !== "string") return "model: Field required";
  if (!isCount && typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  if (body.messages.length === 0) return "messages: at least one message is required";
  const breakpoints = countBreakpoints(body);
  if (breakpoints > MAX_CACHE_BREAKPOINTS) return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`;
  return undefined;
}

/** The raw input JSON of cut-off or malformed tool calls, by content index: streamed verbatim. */
function partialJsonOf(reply: ScriptedReply): Map<number, string> {
  const partial = new Map<number, string>();
  reply.content.forEach((block, index) => {
    const raw = rawJsonOf(block);
    if (raw !== undefined) partial.set(index, raw);
  });
  return partial;
}

function rawJsonOf(block: ScriptedBlock): string | undefined {
  if (block.type !== "tool_use") return undefined;
  if ("partialJson" in block) return block.partialJson;
  if ("rawInputJson" in block) return block.rawInputJson;
  return undefined;
}

function isTextStart(event: StreamEvent): event is StreamEvent & { index: number } {
  return event.type === "content_block_start" && (event.content_block as { type?: string } | undefined)?.type === "text";
}

/** Writes 1 MiB text deltas for block `index` until `bytes` are written or the connection closes, waiting for the socket to drain. */
async function flood(res: ServerResponse, index: number, bytes: number, record: RecordedRequest): Promise<void> {
  const delta = { type: "content_block_delta", index, delta: { type: "text_delta", text: "a".repeat(1024 * 1024) } };
  const event = Buffer.from(`event: content_block_delta\ndata: ${JSON.stringify(delta)}\n\n`);
  record.flooded = 0;
  while (record.flooded < bytes && !res.destroyed) {
    record.flooded += event.length;
    if (res.write(event)) continue;
    await new Promise<void>((resume) => {
      const go = () => {
        res.off("drain", go).off("close", go);
        resume();
      };
      res.on("drain", go).on("close", go);
    });
  }
}

function buildMessage(request: MessagesRequest, reply: ScriptedReply, usage: ComputedUsage) {
  const content = reply.content.map((block) => {
    if (block.type === "text") return { type: "text" as const, text: block.text, citations: null };
    // A non-streamed reply with a cut-off or malformed tool call carries what could be parsed of the input.
    const raw = rawJsonOf(block);
    const input = raw !== undefined ? (safePartialParse(raw) ?? {}) : "input" in block ? block.input : {};
    return { type: "tool_use" as const, id: block.id ?? anthropicId("toolu"), name: block.name, input, caller: { type: "direct" } };
  });
  const hasPartial = reply.content.some((block) => block.type === "tool_use" && "partialJson" in block);
  const hasTool = reply.content.some((block) => block.type === "tool_use");
  const outputTokens = Math.max(
    1,
    reply.content.reduce(
      (sum, block) => sum + countTokens(block.type === "text" ? block.text : (rawJsonOf(block) ?? JSON.stringify("input" in block ? block.input : {}))),
      0,
    ),
  );
  const merged = {
    ...usage,
    output_tokens: outputTokens,
    ...reply.usage,
  };
  return {
    id: anthropicId("msg"),
    type: "message" as const,
    role: "assistant" as const,
    model: String(request.model),
    content,
    stop_reason: reply.stop_reason ?? (hasPartial ? "max_tokens" : hasTool ? "tool_use" : "end_turn"),
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: { ...merged, server_tool_use: null, service_tier: "standard" as const, inference_geo: null, output_tokens_details: null },
  };
}

function safePartialParse(text: string): unknown {
  try {
    return partialParse(text);
  } catch {
    return undefined;
  }
}
