import { readBody } from "./read-body.js";
/**
 * A fake OpenAI-compatible chat-completions server (the API vLLM, Ollama and LiteLLM copy) on
 * 127.0.0.1, driven by the same scripts as the fake Anthropic API (ScriptedModel). It checks what the
 * real API checks of a conversation (every tool call answered, in order), streams SSE chunks as the
 * real API does (text in pieces; each tool call opened with its id and name, its arguments split over
 * several chunks; a finish chunk; the usage chunk when `stream_options.include_usage` asks; `[DONE]`),
 * and accounts cached prompt tokens with automatic prefix caching: the longest prefix of whole
 * messages (tools first) that an earlier request sent counts as cached.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { countTokens } from "./compute-usage.js";
import type { MessagesRequest, ScriptedBlock, ScriptedError, ScriptedModel, ScriptedReply } from "./fake-anthropic.js";
import { chunkText } from "./message-stream-events.js";

export interface FakeOpenAIOptions {
  /** Required as `Authorization: Bearer`; null: no key needed (as with a local vLLM or Ollama). @defaultValue "sk-openai-fake-key" */
  apiKey?: string | null;
  /** Prefixes shorter than this are never cached (OpenAI: 1024). @defaultValue 1024 */
  minCacheableTokens?: number;
  /** Pieces each tool call's arguments are streamed in. @defaultValue 4 */
  argumentPieces?: number;
  /** What `GET /v1/models` lists. @defaultValue ["fake-coder"] */
  models?: string[];
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
}

export interface RecordedChatRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body. */
  body: MessagesRequest;
  /** Index of the script turn this request consumed; undefined when rejected before the script. */
  turn?: number;
  status: number;
  stream: boolean;
  usage?: ChatUsage;
  at: number;
}

export interface FakeOpenAI {
  /** The base URL, `/v1` included, as OPENAI_BASE_URL takes it. */
  readonly url: string;
  readonly apiKey: string | null;
  readonly requests: RecordedChatRequest[];
  /** Error answers sent (scripted, validation, "scripted model exhausted"), mid-stream ones with status 200. */
  readonly errors: Array<{ status: number; type: string; message: string; turn?: number }>;
  exhausted(): number;
  turnsUsed(): number;
  /** TACKLE_PROVIDER, OPENAI_BASE_URL and OPENAI_API_KEY pointing at this fake, for processes under test. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  404: "invalid_request_error",
  429: "rate_limit_exceeded",
  500: "server_error",
  503: "server_error",
};

const FINISH: Record<string, string> = { end_turn: "stop", stop_sequence: "stop", tool_use: "tool_calls", max_tokens: "length", refusal: "content_filter" };

export async function startFakeOpenAI(script: ScriptedModel, options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const apiKey = options.apiKey === undefined ? "sk-openai-fake-key" : options.apiKey;
  const minCacheable = options.minCacheableTokens ?? 1024;
  const cache = new Set<string>();
  const requests: RecordedChatRequest[] = [];
  const errors: FakeOpenAI["errors"] = [];
  let turns = 0;
  let exhausted = 0;

  function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}, turn?: number) {
    errors.push({ status, type, message, ...(turn === undefined ? {} : { turn }) });
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ error: { message, type, param: null, code: status === 429 ? "rate_limit_exceeded" : null } }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const raw = await readBody(req);
    const record: RecordedChatRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      headers: req.headers,
      body: {},
      status: 0,
      stream: false,
      at: Date.now(),
    };
    requests.push(record);
    const reject = (status: number, message: string, headers: Record<string, string> = {}) => {
      record.status = status;
      sendError(res, status, ERROR_TYPES[status] ?? "server_error", message, headers);
    };
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (apiKey !== null && bearer !== apiKey) return reject(401, "Incorrect API key provided.");
    if (req.method === "GET" && url.pathname === "/v1/models") {
      record.status = 200;
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({ object: "list", data: (options.models ?? ["fake-coder"]).map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })) }),
      );
    }
    if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") return reject(404, `Unknown request URL: ${req.method} ${url.pathname}`);
    let body: MessagesRequest;
    try {
      body = JSON.parse(raw.toString("utf8")) as MessagesRequest;
    } catch {
      return reject(400, "We could not parse the JSON body of your request.");
    }
    record.body = body;
    const invalid = validate(body);
    if (invalid) return reject(400, invalid);

    record.stream = body.stream === true;
    const turnIndex = turns++;
    record.turn = turnIndex;
    const turn = Array.isArray(script) ? script[turnIndex] : await script(body, turnIndex);
    if (!turn) {
      exhausted += 1;
      record.status = 500;
      return sendError(res, 500, "server_error", "scripted model exhausted", { "x-should-retry": "false" }, turnIndex);
    }
    if ("error" in turn && !(turn.midStream && record.stream)) {
      record.status = turn.error.status;
      return sendError(
        res,
        turn.error.status,
        turn.error.type ?? ERROR_TYPES[turn.error.status] ?? "server_error",
        turn.error.message ?? "Error",
        retryHeaders(turn),
        turnIndex,
      );
    }
    const reply: ScriptedReply = "error" in turn ? { content: [] } : turn;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const usage = accountUsage(body, reply);
    record.usage = usage;
    record.status = 200;
    if (!record.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(completion(body, reply, usage)));
    }
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    const chunks = streamChunks(body, reply, usage, options.argumentPieces ?? 4);
    let sent = 0;
    for (const chunk of chunks) {
      if (sent++ === reply.cutAfterEvents) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.destroy();
        return;
      }
      res.write(`data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`);
      if ("error" in turn && sent === 1) {
        const failure = turn as ScriptedError;
        const type = failure.error.type ?? ERROR_TYPES[failure.error.status] ?? "server_error";
        const message = failure.error.message ?? "Error";
        errors.push({ status: 200, type, message, turn: turnIndex });
        res.write(`data: ${JSON.stringify({ error: { message, type, code: failure.error.status } })}\n\n`);
        break;
      }
    }
    res.end();
  }

  /** Prompt tokens, and the cached part: the longest prefix of whole parts an earlier request sent (the reply's own tokens are not cached). */
  function accountUsage(body: MessagesRequest, reply: ScriptedReply): ChatUsage {
    let key = createHash("sha256").update(String(body.model)).digest("hex");
    let tokens = 0;
    let cached = 0;
    const keys: string[] = [];
    for (const part of promptParts(body)) {
      const serialized = JSON.stringify(part);
      key = createHash("sha256").update(key).update("\n").update(serialized).digest("hex");
      tokens += countTokens(serialized);
      if (cache.has(key) && tokens >= minCacheable) cached = tokens;
      keys.push(key);
    }
    for (const k of keys) cache.add(k);
    const completion = Math.max(
      1,
      reply.content.reduce((sum, block) => sum + countTokens(block.type === "text" ? block.text : argumentsOf(block)), 0),
    );
    // A script's input_tokens stands for the whole prompt here (OpenAI's prompt_tokens include the cached part).
    return { prompt_tokens: reply.usage?.input_tokens ?? tokens, completion_tokens: reply.usage?.output_tokens ?? completion, cached_tokens: cached };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, "server_error", `fake OpenAI crashed: ${String(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    apiKey,
    requests,
    errors,
    exhausted: () => exhausted,
    turnsUsed: () => turns,
    env: () => ({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: url, ...(apiKey === null ? {} : { OPENAI_API_KEY: apiKey }) }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: Array<{ id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }>;
  tool_call_id?: unknown;
}

/** The checks the real API makes of a request before running the model, with its messages. */
function validate(body: MessagesRequest): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "[] is too short - 'messages'";
  if (body.stream_options !== undefined && body.stream !== true) return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  for (const tool of (body.tools as unknown[] | undefined) ?? []) {
    const fn = (tool as { type?: unknown; function?: { name?: unknown; parameters?: unknown } }).function;
    if ((tool as { type?: unknown }).type !== "function" || typeof fn?.name !== "string")
      return "Invalid 'tools': each tool must be {type: 'function', function: {name, …}}";
    if (fn.parameters !== undefined && (typeof fn.parameters !== "object" || fn.parameters === null)) return `Invalid schema for function '${fn.name}'`;
  }
  let awaiting: string[] = [];
  for (const [index, message] of (body.messages as ChatMessage[]).entries()) {
    if (!["system", "developer", "user", "assistant", "tool"].includes(String(message.role)))
      return `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool' (messages[${index}].role)`;
    if (message.role === "tool") {
      if (!awaiting.includes(String(message.tool_call_id))) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages[${index}]).`;
      }
      if (typeof message.content !== "string" && !Array.isArray(message.content)) return `messages[${index}].content: expected a string`;
      awaiting = awaiting.filter((id) => id !== message.tool_call_id);
      continue;
    }
    if (awaiting.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${awaiting.join(", ")}`;
    }
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        if (typeof call.id !== "string" || call.type !== "function" || typeof call.function?.name !== "string" || typeof call.function.arguments !== "string") {
          return `messages[${index}].tool_calls: each call needs an id, type 'function' and a function with a name and string arguments`;
        }
      }
      awaiting = message.tool_calls.map((call) => String(call.id));
    } else if (message.content === null || message.content === undefined) {
      return `messages[${index}].content: expected a string, got null`;
    }
  }
  if (awaiting.length > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${awaiting.join(", ")}`;
  }
  return undefined;
}

/** The request in cache order: the tools (one part, as a chat template renders them up front), then each message. */
function promptParts(body: MessagesRequest): unknown[] {
  const tools = body.tools === undefined ? [] : [{ tools: body.tools }];
  return [...tools, ...(body.messages as unknown[])];
}

function argumentsOf(block: ScriptedBlock): string {
  if (block.type !== "tool_use") return "";
  if ("partialJson" in block) return block.partialJson;
  if ("rawInputJson" in block) return block.rawInputJson;
  return JSON.stringify(block.input);
}

function finishReason(reply: ScriptedReply): string {
  const hasPartial = reply.content.some((block) => block.type === "tool_use" && "partialJson" in block);
  const hasTool = reply.content.some((block) => block.type === "tool_use");
  const stop = reply.stop_reason ?? (hasPartial ? "max_tokens" : hasTool ? "tool_use" : "end_turn");
  return FINISH[stop] ?? "stop";
}

const chatId = () => `chatcmpl-${randomBytes(12).toString("hex")}`;
const callId = () => `call_${randomBytes(12).toString("hex")}`;

function usageJson(usage: ChatUsage) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Every chunk of a streamed reply, `[DONE]` last. */
function streamChunks(body: MessagesRequest, reply: ScriptedReply, usage: ChatUsage, argumentPieces: number): Array<Record<string, unknown> | string> {
  const base = { id: chatId(), object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: String(body.model), system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage(body) ? { usage: null } : {}),
  });
  const chunks: Array<Record<string, unknown> | string> = [chunk({ role: "assistant", content: "" })];
  const text = reply.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  for (const piece of chunkText(text)) chunks.push(chunk({ content: piece }));
  reply.content
    .filter((block) => block.type === "tool_use")
    .forEach((block, index) => {
      chunks.push(chunk({ tool_calls: [{ index, id: block.id ?? callId(), type: "function", function: { name: block.name, arguments: "" } }] }));
      for (const piece of chunkText(argumentsOf(block), argumentPieces)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
  chunks.push(chunk({}, finishReason(reply)));
  if (includeUsage(body)) chunks.push({ ...base, choices: [], usage: usageJson(usage) });
  chunks.push("[DONE]");
  return chunks;
}

function includeUsage(body: MessagesRequest): boolean {
  return (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
}

function completion(body: MessagesRequest, reply: ScriptedReply, usage: ChatUsage) {
  const text = reply.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const calls = reply.content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id ?? callId(), type: "function", function: { name: block.name, arguments: argumentsOf(block) } }] : [],
  );
  return {
    id: chatId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: String(body.model),
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text === "" ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}), refusal: null },
        logprobs: null,
        finish_reason: finishReason(reply),
      },
    ],
    usage: usageJson(usage),
  };
}

function retryHeaders(turn: ScriptedError): Record<string, string> {
  return {
    ...(turn.retryAfter === undefined ? {} : { "retry-after": String(turn.retryAfter) }),
    ...(turn.retryAfterMs === undefined ? {} : { "retry-after-ms": String(turn.retryAfterMs) }),
  };
}
