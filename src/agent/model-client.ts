import type Anthropic from "@anthropic-ai/sdk";

export type MessageRequest = Anthropic.Messages.MessageCreateParamsNonStreaming;
export type ModelMessage = Anthropic.Messages.Message;
/** One entry of a request's `messages`. */
export type ModelMessageParam = Anthropic.Messages.MessageParam;

/**
 * The agent loop's only view of a model. The Anthropic adapter streams through the SDK; the replay
 * client serves a transcript's recorded responses in order.
 *
 * `create` rejects with a TackleError: `model_api` (with `retryable` set from the HTTP status),
 * `aborted` when `signal` fires, or `replay_exhausted` from the replay client.
 */
export interface ModelClient {
  readonly name: string;
  create(request: MessageRequest, signal: AbortSignal): Promise<ModelMessage>;
}

/** Token counts summed over a run's model calls. */
export interface TokenUsage {
  /** Uncached input tokens. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}
