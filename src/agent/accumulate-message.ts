import type Anthropic from "@anthropic-ai/sdk";
import { TackleError } from "../errors/tackle-error.js";
import type { ModelContentBlock, ModelMessage } from "./model-client.js";
import { tokenCount } from "./token-count.js";
import { parseToolInput } from "./parse-tool-input.js";

type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;
type Usage = Anthropic.Messages.Usage;

/**
 * Builds the message from a Messages API stream's events (message_start, content blocks with their
 * deltas, message_delta, message_stop). Unlike the SDK's own accumulator, a tool_use block whose
 * streamed input is not valid JSON does not fail the message: it keeps `input: {}` and says why in
 * `invalid_input`, so the loop can tell the model (see ModelToolUseBlock).
 *
 * Rejects with a retryable `model_api` TackleError when the stream ends before message_stop (a
 * connection cut mid-way) or breaks the event order, and with a non-retryable one when a usage count
 * is not one (tokenCount); errors of the iteration itself pass through.
 *
 * @param api who sent the stream, for errors. @defaultValue "Anthropic API"
 */
export async function accumulateMessage(events: AsyncIterable<StreamEvent> | Iterable<StreamEvent>, api = "Anthropic API"): Promise<ModelMessage> {
  let message: ModelMessage | undefined;
  const inputJson = new Map<number, string>();

  for await (const event of events) {
    if (event.type === "message_start") {
      if (message !== undefined) throw streamBroken("a second message_start");
      message = { ...event.message, content: [], usage: startUsage(event.message.usage, api) };
      continue;
    }
    if (message === undefined) throw streamBroken(`${event.type} before message_start`);
    switch (event.type) {
      case "content_block_start":
        message.content[event.index] = { ...event.content_block } as ModelContentBlock;
        if ("input" in event.content_block) inputJson.set(event.index, "");
        break;
      case "content_block_delta":
        applyDelta(message.content[event.index], event.delta, (json) => {
          inputJson.set(event.index, (inputJson.get(event.index) ?? "") + json);
        });
        break;
      case "content_block_stop":
        settleInput(message.content[event.index], inputJson.get(event.index));
        inputJson.delete(event.index);
        break;
      case "message_delta":
        applyMessageDelta(message, event, api);
        break;
      case "message_stop":
        // Blocks the stream never stopped (not seen from the API) still get their input read.
        for (const [index, json] of inputJson) settleInput(message.content[index], json);
        // Holes would mean a block index the stream skipped: keep the rest of the message usable.
        message.content = message.content.filter((block) => block !== undefined);
        return message;
    }
  }
  throw streamBroken(message === undefined ? "no events" : "the stream ended before message_stop");
}

function applyDelta(block: ModelContentBlock | undefined, delta: Anthropic.Messages.RawContentBlockDelta, addJson: (json: string) => void): void {
  if (block === undefined) throw streamBroken("a content_block_delta for a block that never started");
  switch (delta.type) {
    case "text_delta":
      if (block.type === "text") block.text += delta.text;
      break;
    case "citations_delta":
      if (block.type === "text") block.citations = [...(block.citations ?? []), delta.citation];
      break;
    case "thinking_delta":
      if (block.type === "thinking") block.thinking += delta.thinking;
      break;
    case "signature_delta":
      if (block.type === "thinking") block.signature = delta.signature;
      break;
    case "input_json_delta":
      addJson(delta.partial_json);
      break;
  }
}

/** Sets a block's input from its streamed JSON; a tool call whose JSON does not parse is marked, not dropped. */
function settleInput(block: ModelContentBlock | undefined, json: string | undefined): void {
  if (block === undefined || json === undefined || !("input" in block)) return;
  // A tool without parameters streams nothing but the empty opening delta.
  if (json.trim() === "") {
    block.input = {};
    return;
  }
  const parsed = parseToolInput(json);
  if ("input" in parsed) block.input = parsed.input;
  else {
    block.input = {};
    if (block.type === "tool_use") block.invalid_input = parsed.invalid;
  }
}

function applyMessageDelta(message: ModelMessage, event: Anthropic.Messages.RawMessageDeltaEvent, api: string): void {
  message.stop_reason = event.delta.stop_reason;
  message.stop_sequence = event.delta.stop_sequence;
  if (event.delta.stop_details !== undefined) message.stop_details = event.delta.stop_details;
  if (event.delta.container != null) message.container = event.delta.container;
  // The counters are whole-message totals, sent only when they apply: overwrite, never add.
  const usage: Partial<Anthropic.Messages.MessageDeltaUsage> = event.usage ?? {};
  for (const field of COUNTS) {
    if (usage[field] != null) message.usage[field] = tokenCount(usage[field], `usage.${field} of message_delta`, api);
  }
  if (usage.server_tool_use != null) message.usage.server_tool_use = usage.server_tool_use;
  if (usage.output_tokens_details != null) message.usage.output_tokens_details = usage.output_tokens_details;
}

/** The usage counts pricing reads (costOf), each checked wherever the stream sends it. */
const COUNTS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

/** message_start's usage with its counts checked; the two it must have are 0 when missing. */
function startUsage(sent: Usage | undefined, api: string): Usage {
  const usage: Usage = { ...(sent as Usage), input_tokens: 0, output_tokens: 0 };
  for (const field of COUNTS) {
    if (sent?.[field] != null) usage[field] = tokenCount(sent[field], `usage.${field} of message_start`, api);
  }
  const byTtl = sent?.cache_creation;
  if (byTtl != null) {
    usage.cache_creation = {
      ephemeral_5m_input_tokens: tokenCount(byTtl.ephemeral_5m_input_tokens, "usage.cache_creation.ephemeral_5m_input_tokens of message_start", api),
      ephemeral_1h_input_tokens: tokenCount(byTtl.ephemeral_1h_input_tokens, "usage.cache_creation.ephemeral_1h_input_tokens of message_start", api),
    };
  }
  return usage;
}

function streamBroken(what: string): TackleError {
  return new TackleError("model_api", `Anthropic stream broken: ${what}`, { retryable: true });
}
