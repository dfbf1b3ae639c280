/** What leaves src/agent: the loop, the model clients, transcripts, pricing and prompt building. */
export {
  runAgent,
  describeEnding,
  type RunAgentOptions,
  type AgentResult,
  type AgentEndReason,
  type AgentBudgets,
  type AgentProgressEvent,
} from "./loop.js";
export type { ModelClient, MessageRequest, ModelMessage, ModelMessageParam, TokenUsage } from "./model-client.js";
export { createAnthropicClient, type AnthropicClientOptions } from "./anthropic-client.js";
export { createReplayClient, type ReplayClient } from "./replay-client.js";
export {
  createTranscript,
  transcriptDir,
  transcriptPath,
  TRANSCRIPT_VERSION,
  type TranscriptSink,
  type TranscriptWriter,
  type TranscriptEnd,
  type CreateTranscriptOptions,
  type CallPurpose,
} from "./transcript.js";
export { costOf, priceOf, type ModelPrice, type UsageLike } from "./pricing.js";
export { buildSystemPrompt, type SystemPromptInput, type InstructionFile } from "./prompt/build-system-prompt.js";
export { buildTaskMessage, type TaskMessageInput, type TaskInput, type TriggerInput } from "./prompt/build-task-message.js";
export { renderState, type BudgetView } from "./prompt/render-state.js";
export type { ToolRunner, ToolContext, ToolCall, ToolCallResult, ToolDefinition } from "./tools/tool.js";
export type { SessionState, Todo } from "./ports.js";
