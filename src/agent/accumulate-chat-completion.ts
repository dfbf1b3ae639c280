import { randomBytes } from "node:crypto";
import type Anthropic from "@anthropic-ai/sdk";
import { TackleError } from "../errors/tackle-error.js";
import type { ModelContentBlock, ModelMessage, ModelToolUseBlock } from "./model-client.js";
import { tokenCount } from "./token-count.js";
import { parseToolInput } from "./parse-tool-input.js";

/** The parts of a `chat.completion.chunk` read here; servers add more, and omit some. */
interface ChatChunk {
  id?: string;
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: { content?: string | null; tool_calls?: ToolCallDelta[] | null } | null;
    finish_reason?: string | null;
  }>;
  usage?: ChatUsage | null;
  /** Sent inside a 200 stream by vLLM, LiteLLM and others when generation fails part-way. */
  error?: { message?: string; type?: string; code?: number | string | null } | string;
}

interface ToolCallDelta {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | Record<string, unknown> | null } | null;
}

interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  /** DeepSeek's name for the cached part of the prompt. */
  prompt_cache_hit_tokens?: number | null;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

type StopReason = Anthropic.Messages.StopReason;

/**
 * Builds an Anthropic-shaped message from a chat-completions stream's `data` payloads (JSON chunks,
 * then `[DONE]`): `delta.content` pieces make one text block, `delta.tool_calls` fragments (id and
 * name first, then the arguments in pieces, keyed by `index`) make tool_use blocks, `finish_reason`
 * becomes the stop reason, and the usage chunk (`stream_options.include_usage`) the token counts, the
 * cached part of the prompt as cache reads. Arguments that are not valid JSON leave the call with
 * `input: {}` and `invalid_input` set, as accumulateMessage does.
 *
 * Rejects with a retryable `model_api` TackleError when the stream ends with neither a finish reason
 * nor `[DONE]` (a connection cut mid-way) or carries a chunk that is not JSON; an error object inside
 * the stream rejects, retryable when its code is a 429 or 5xx (or absent: the server gave up mid-way);
 * a usage count that is not one rejects, not retryable (tokenCount).
 */
export async function accumulateChatCompletion(data: AsyncIterable<string>, model: string): Promise<ModelMessage> {
  let id: string | undefined;
  let text = "";
  const calls: PendingCall[] = [];
  let finish: string | null | undefined;
  let usage: ChatUsage | undefined;
  let done = false;

  for await (const payload of data) {
    if (payload.trim() === "[DONE]") {
      done = true;
      break;
    }
    const chunk = parseChunk(payload);
    if (chunk.error !== undefined) throw streamError(chunk.error);
    id ??= chunk.id;
    if (chunk.usage != null) usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (choice === undefined) continue;
    if (typeof choice.delta?.content === "string") text += choice.delta.content;
    for (const delta of choice.delta?.tool_calls ?? []) applyToolCallDelta(calls, delta);
    if (choice.finish_reason != null) finish = choice.finish_reason;
  }
  if (!done && finish === undefined) throw broken("the stream ended before a finish_reason");

  const content: ModelContentBlock[] = [];
  if (text !== "") content.push({ type: "text", text, citations: null });
  for (const call of calls) content.push(toolUseBlock(call));
  return {
    id: id ?? `chatcmpl-${randomBytes(12).toString("hex")}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason(finish, calls.length > 0),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: toUsage(usage),
  };
}

function parseChunk(payload: string): ChatChunk {
  try {
    const parsed = JSON.parse(payload) as unknown;
    if (parsed !== null && typeof parsed === "object") return parsed as ChatChunk;
  } catch {
    // Reported below, with what arrived.
  }
  throw broken(`a chunk that is not a JSON object: ${payload.slice(0, 200)}`);
}

/**
 * Fragments of one call share an `index`; a server that sends whole calls without one (some Ollama
 * versions) gets a new call for each fragment that brings an id. A name is sent once by most servers
 * and repeated whole by a few, so a repeat is not appended.
 */
function applyToolCallDelta(calls: PendingCall[], delta: ToolCallDelta): void {
  const index = delta.index ?? (delta.id ? calls.length : Math.max(0, calls.length - 1));
  const call = calls[index] ?? { id: "", name: "", args: "" };
  calls[index] = call;
  if (delta.id) call.id = delta.id;
  const name = delta.function?.name;
  if (name && call.name !== name) call.name += name;
  const args = delta.function?.arguments;
  if (typeof args === "string") call.args += args;
  else if (args != null) call.args += JSON.stringify(args);
}

function toolUseBlock(call: PendingCall): ModelToolUseBlock {
  const block: ModelToolUseBlock = {
    type: "tool_use",
    // The loop answers each call by id: a server that sends none still gets one, unique in the job.
    id: call.id || `call_${randomBytes(12).toString("hex")}`,
    name: call.name,
    input: {},
    caller: { type: "direct" },
  };
  if (call.args.trim() === "") return block;
  const parsed = parseToolInput(call.args);
  if ("input" in parsed) block.input = parsed.input;
  else block.invalid_input = parsed.invalid;
  return block;
}

/**
 * Some servers answer `stop` for a reply that made calls (their tool parser ran after the model
 * stopped): calls present mean the loop must run them, unless the reply was cut at max_tokens.
 */
function stopReason(finish: string | null | undefined, hasCalls: boolean): StopReason {
  switch (finish) {
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    default:
      return hasCalls ? "tool_use" : "end_turn";
  }
}

/**
 * The prompt tokens a server reports include the cached ones; Anthropic's `input_tokens` do not. Each
 * count is checked by tokenCount (absent is 0; one that is not a count fails the response).
 */
function toUsage(usage: ChatUsage | undefined): Anthropic.Messages.Usage {
  const count = (value: unknown, field: string) => tokenCount(value, field, "OpenAI-compatible API");
  const prompt = count(usage?.prompt_tokens, "usage.prompt_tokens");
  const details = usage?.prompt_tokens_details?.cached_tokens;
  const cachedCount =
    details != null ? count(details, "usage.prompt_tokens_details.cached_tokens") : count(usage?.prompt_cache_hit_tokens, "usage.prompt_cache_hit_tokens");
  const cached = Math.min(prompt, cachedCount);
  return {
    input_tokens: prompt - cached,
    output_tokens: count(usage?.completion_tokens, "usage.completion_tokens"),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
}

/** Error types a stream may carry that another attempt may get past; an error that names neither code nor type is one too. */
const RETRYABLE_ERROR_TYPES = new Set([
  "server_error",
  "api_error",
  "internal_server_error",
  "overloaded_error",
  "rate_limit_error",
  "timeout_error",
  "timeout",
]);

function streamError(error: NonNullable<ChatChunk["error"]>): TackleError {
  const detail = typeof error === "string" ? { message: error } : error;
  const code = typeof detail.code === "string" && /^\d+$/.test(detail.code) ? Number(detail.code) : detail.code;
  const retryable =
    typeof code === "number"
      ? code === 408 || code === 429 || code >= 500
      : detail.type === undefined && code == null
        ? true
        : RETRYABLE_ERROR_TYPES.has(detail.type ?? "");
  const what = [detail.type, typeof code === "number" ? `code ${code}` : code].filter(Boolean).join(", ");
  return new TackleError("model_api", `OpenAI-compatible stream error${what ? ` (${what})` : ""}: ${detail.message ?? "no message"}`, { retryable });
}

function broken(what: string): TackleError {
  return new TackleError("model_api", `OpenAI-compatible stream broken: ${what}`, { retryable: true });
}
