import type Anthropic from "@anthropic-ai/sdk";
import type { ModelPrice } from "./pricing.js";

export type MessageRequest = Anthropic.Messages.MessageCreateParamsNonStreaming;
/** One entry of a request's `messages`. */
export type ModelMessageParam = Anthropic.Messages.MessageParam;

/** Why a tool call's input could not be read. */
export interface InvalidToolInput {
  /** The JSON parser's complaint. */
  error: string;
  /** The input exactly as the model sent it. */
  raw: string;
}

/**
 * A tool call as a model client returns it. Input the model sent that is not valid JSON does not fail
 * the call to the model: the block comes back with `input: {}` and `invalid_input` set, and the tool
 * registry answers it with an is_error result, so the model sees its mistake on the next turn.
 */
export type ModelToolUseBlock = Anthropic.Messages.ToolUseBlock & { invalid_input?: InvalidToolInput };
export type ModelContentBlock = Exclude<Anthropic.Messages.ContentBlock, Anthropic.Messages.ToolUseBlock> | ModelToolUseBlock;
export type ModelMessage = Omit<Anthropic.Messages.Message, "content"> & { content: ModelContentBlock[] };

/**
 * The agent loop's only view of a model. The Anthropic adapter streams through the SDK; the replay
 * client serves a transcript's recorded responses in order.
 *
 * `create` rejects with a TackleError: `model_api` (with `retryable` set from the HTTP status),
 * `aborted` when `signal` fires, or `replay_exhausted` from the replay client. A tool call whose input
 * is not valid JSON is not a rejection: see ModelToolUseBlock.
 */
export interface ModelClient {
  readonly name: string;
  /** `call.agent` says which conversation of the job asks (`main`, `main/2/1`): a replay serves each its own responses. */
  create(request: MessageRequest, signal: AbortSignal, call?: ModelCall): Promise<ModelMessage>;
  /**
   * What a model costs where this client sends it (the provider's table, the operator's prices).
   * @defaultValue the Anthropic table (pricing.ts priceOf)
   */
  price?: (model: string) => ModelPrice;
}

/** Which of the job's conversations a model call belongs to. */
export interface ModelCall {
  /** `main` for the job's agent; a subagent's or a tool's call is keyed by its place in the tree (`main/2/1`). */
  agent: string;
}

/** Token counts summed over a run's model calls. */
export interface TokenUsage {
  /** Uncached input tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}
