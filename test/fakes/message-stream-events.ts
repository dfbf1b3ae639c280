/**
 * The SSE event sequence the Messages API streams for one message: message_start (empty content,
 * input usage), per block start / deltas / stop, message_delta (stop reason, output tokens),
 * message_stop. Text and tool input arrive in several deltas, as they do from the real API, so
 * clients that only handle a single delta get caught.
 */

interface StreamedMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: Array<{ type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown }>;
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number } & Record<string, unknown>;
}

export type StreamEvent = { type: string } & Record<string, unknown>;

/** Splits text into about `parts` pieces (at least one character each). */
export function chunkText(text: string, parts = 3): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/**
 * @param partialJson raw, possibly invalid, tool input JSON by content index, for tool calls cut
 *   off by max_tokens or written malformed by the model: streamed verbatim instead of the serialized input.
 */
export function messageStreamEvents(message: StreamedMessage, partialJson: Map<number, string> = new Map()): StreamEvent[] {
  const { usage } = message;
  const events: StreamEvent[] = [
    {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The real API reports input usage up front and a token or so of output until message_delta.
        usage: { ...usage, output_tokens: 1 },
      },
    },
    { type: "ping" },
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of chunkText(block.text)) events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    } else {
      events.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
      // The API opens every tool input with an empty delta.
      const json = partialJson.get(index) ?? JSON.stringify(block.input);
      for (const piece of ["", ...chunkText(json, 4)]) {
        events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
      }
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
    { type: "message_stop" },
  );
  return events;
}
