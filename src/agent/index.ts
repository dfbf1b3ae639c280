/** What leaves src/agent: the loop, the model clients, transcripts, pricing and prompt building. */
export { runAgent, type AgentResult } from "./loop.js";

export { createAnthropicClient } from "./anthropic-client.js";
export { createOpenAIClient } from "./openai-client.js";
export { createBedrockClient } from "./bedrock-client.js";
export { createVertexClient } from "./vertex-client.js";
export type { ModelClient } from "./model-client.js";
export { createReplayClient } from "./replay-client.js";
export { createTranscript } from "./transcript.js";

export { buildSystemPrompt } from "./prompt/build-system-prompt.js";
export { buildTaskMessage } from "./prompt/build-task-message.js";
