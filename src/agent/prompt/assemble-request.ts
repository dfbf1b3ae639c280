import type Anthropic from "@anthropic-ai/sdk";
import type { MessageRequest } from "../model-client.js";
import type { ToolDefinition } from "../tools/tool.js";

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;

export interface AssembleRequestInput {
  model: string;
  maxTokens: number;
  system: string;
  tools: readonly ToolDefinition[];
  /**
   * Tools at the head of the list that never change in a run; the tools breakpoint sits on the last of
   * them, so a change in the tools after them (an MCP activation) keeps that prefix cached. @defaultValue all
   */
  stableTools?: number;
  /** The conversation so far, ending with a user message. Never modified. */
  history: readonly MessageParam[];
  /** The moving-state block, appended to the newest user message only. */
  stateText: string;
}

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * Builds one turn's request with prompt-cache breakpoints (at most four):
 *
 * 1. the last tool definition and 2. the system block: the stable prefix, reused even after compaction
 *    rewrites the messages;
 * 3. the last block of the previous user message: where the previous request wrote its cache entry,
 *    so this request reads it back even when many blocks were added since (the API only looks back
 *    about 20 blocks from a breakpoint on its own);
 * 4. the last block of the newest user message: the moving end, written for the next request.
 *
 * The state block comes after breakpoint 4 and lives only in this request: the history keeps the
 * message without it, so the next request's prefix up to breakpoint 3 is byte-identical to what this
 * one cached. Markers are set on copies; the history is never touched.
 */
export function assembleRequest(input: AssembleRequestInput): MessageRequest {
  const { history } = input;
  const last = history.length - 1;
  if (last < 0 || history[last]?.role !== "user") {
    throw new Error("assembleRequest: the history must end with a user message");
  }
  const previousUser = findLastIndex(history, (m) => m.role === "user", last - 1);

  const messages = history.map((message, index): MessageParam => {
    if (index === last) {
      return { role: "user", content: [...markLast(blocksOf(message)), { type: "text", text: input.stateText }] };
    }
    if (index === previousUser) return { role: "user", content: markLast(blocksOf(message)) };
    return message;
  });

  const request: MessageRequest = {
    model: input.model,
    max_tokens: input.maxTokens,
    system: [{ type: "text", text: input.system, cache_control: EPHEMERAL }],
    messages,
  };
  if (input.tools.length > 0) {
    const marked = Math.min(input.stableTools ?? input.tools.length, input.tools.length) - 1;
    request.tools = input.tools.map((tool, index) => (index === marked ? { ...tool, cache_control: EPHEMERAL } : { ...tool }));
  }
  return request;
}

function blocksOf(message: MessageParam): ContentBlockParam[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : [...message.content];
}

function markLast(blocks: ContentBlockParam[]): ContentBlockParam[] {
  const lastBlock = blocks.at(-1);
  if (lastBlock === undefined || !canCarryCacheControl(lastBlock)) return blocks;
  return [...blocks.slice(0, -1), { ...lastBlock, cache_control: EPHEMERAL } as ContentBlockParam];
}

// Thinking blocks cannot carry a breakpoint; user messages never hold them, but say so rather than send a 400.
function canCarryCacheControl(block: ContentBlockParam): boolean {
  return block.type !== "thinking" && block.type !== "redacted_thinking";
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean, from: number): number {
  for (let i = from; i >= 0; i--) {
    const item = items[i];
    if (item !== undefined && predicate(item)) return i;
  }
  return -1;
}
