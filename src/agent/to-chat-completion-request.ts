import type Anthropic from "@anthropic-ai/sdk";
import type { MessageRequest } from "./model-client.js";

type ContentBlockParam = Anthropic.Messages.ContentBlockParam;

/** A tool call as an assistant message of the chat-completions API carries it. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export type ChatToolChoice = "auto" | "required" | "none" | { type: "function"; function: { name: string } };

/** The body of a streamed `POST {base}/chat/completions`. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  max_tokens: number;
  stop?: string[];
  stream: true;
  stream_options: { include_usage: true };
}

/** What a tool result says when the tool failed: the chat-completions API has no `is_error`. */
export const TOOL_ERROR_PREFIX = "Error: ";

/**
 * Maps an Anthropic-shaped request (what the loop builds) to an OpenAI chat-completions request.
 *
 * The prefix a server can cache stays byte-stable from one turn to the next: the system message and the
 * tools come first, `cache_control` marks are dropped, and every message maps the same way each time. A
 * user message's tool results become `role: "tool"` messages right after the assistant's calls (the
 * API requires that order) and its text one user message after them, so the loop's per-turn state
 * text, which only the newest user message carries, sits at the very end.
 *
 * Thinking blocks, images and documents have no common chat-completions form and are left out.
 */
export function toChatCompletionRequest(request: MessageRequest): ChatCompletionRequest {
  const messages: ChatMessage[] = [];
  const system = systemText(request.system);
  if (system !== "") messages.push({ role: "system", content: system });
  for (const message of request.messages) {
    const blocks: ContentBlockParam[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    messages.push(...(message.role === "assistant" ? assistantMessages(blocks) : userMessages(blocks)));
  }
  const tools = (request.tools ?? []).flatMap(toChatTool);
  const choice = request.tool_choice;
  const serial = choice !== undefined && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true;
  return {
    model: request.model,
    messages,
    ...(tools.length > 0 && { tools }),
    ...(tools.length > 0 && choice !== undefined && { tool_choice: toChatToolChoice(choice) }),
    ...(tools.length > 0 && serial && { parallel_tool_calls: false }),
    max_tokens: request.max_tokens,
    ...(request.stop_sequences !== undefined && request.stop_sequences.length > 0 && { stop: request.stop_sequences }),
    stream: true,
    stream_options: { include_usage: true },
  };
}

function systemText(system: MessageRequest["system"]): string {
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  return system.map((block) => block.text).join("\n\n");
}

function assistantMessages(blocks: readonly ContentBlockParam[]): ChatMessage[] {
  const text = blocks.flatMap((block) => (block.type === "text" && block.text !== "" ? [block.text] : [])).join("\n\n");
  const calls = blocks.flatMap((block): ChatToolCall[] =>
    block.type === "tool_use" ? [{ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }] : [],
  );
  if (calls.length === 0) return [{ role: "assistant", content: text }];
  // `null`, as the API itself answers a message of calls only: some proxies refuse an empty text.
  return [{ role: "assistant", content: text === "" ? null : text, tool_calls: calls }];
}

function userMessages(blocks: readonly ContentBlockParam[]): ChatMessage[] {
  const results = blocks.flatMap((block): ChatMessage[] =>
    block.type === "tool_result" ? [{ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block) }] : [],
  );
  const text = blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n\n");
  return text === "" ? results : [...results, { role: "user", content: text }];
}

function toolResultText(block: Anthropic.Messages.ToolResultBlockParam): string {
  const content = block.content;
  const text =
    content === undefined
      ? ""
      : typeof content === "string"
        ? content
        : content.flatMap((part) => (part.type === "text" ? [part.text] : [`(${part.type} omitted)`])).join("\n\n");
  const shown = text === "" ? "(no output)" : text;
  return block.is_error === true ? `${TOOL_ERROR_PREFIX}${shown}` : shown;
}

/** Only client tools map: Anthropic's server tools (web search, code execution) have no counterpart. */
function toChatTool(tool: Anthropic.Messages.ToolUnion): ChatTool[] {
  if (!("input_schema" in tool)) return [];
  const { description } = tool as Anthropic.Messages.Tool;
  return [
    {
      type: "function",
      function: { name: tool.name, ...(description === undefined ? {} : { description }), parameters: tool.input_schema as Record<string, unknown> },
    },
  ];
}

function toChatToolChoice(choice: Anthropic.Messages.ToolChoice): ChatToolChoice {
  switch (choice.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { type: "function", function: { name: choice.name } };
  }
}
