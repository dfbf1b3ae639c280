import type Anthropic from "@anthropic-ai/sdk";

export type MessageRequest = Anthropic.Messages.MessageCreateParamsNonStreaming;
export type ModelMessage = Anthropic.Messages.Message;

/**
 * The agent loop's only view of a model. The Anthropic adapter streams through the SDK; the replay
 * client serves a transcript's recorded responses in order.
 */
export interface ModelClient {
  readonly name: string;
  create(request: MessageRequest, signal: AbortSignal): Promise<ModelMessage>;
}
