import { readFileSync } from "node:fs";
import { z } from "zod";
import { TackleError, errorMessage } from "../errors/tackle-error.js";
import type { MessageRequest, ModelClient, ModelMessage } from "./model-client.js";
import { TRANSCRIPT_VERSION } from "./transcript.js";

const stopReasonSchema = z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded"]);

const blockSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("tool_use"), id: z.string().min(1).optional(), name: z.string().min(1), input: z.unknown() }),
  z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
]);

const messageSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  content: z.array(blockSchema),
  stop_reason: stopReasonSchema,
  usage: z.looseObject({}).optional(),
});

const turnSchema = z.number().int().nonnegative().optional();

const lineSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("meta"), version: z.literal(TRANSCRIPT_VERSION) }),
  z.looseObject({ type: z.literal("request"), turn: turnSchema, body: z.looseObject({}) }),
  z.looseObject({ type: z.literal("response"), turn: turnSchema, message: messageSchema }),
  z.looseObject({ type: z.literal("tool_results"), turn: turnSchema, results: z.array(z.unknown()) }),
  z.looseObject({ type: z.literal("end"), reason: z.string() }),
]);

type RecordedMessage = z.infer<typeof messageSchema>;

export interface ReplayClient extends ModelClient {
  /** Responses not served yet. */
  readonly remaining: number;
}

/**
 * A ModelClient that serves a transcript's `response` lines in order, whatever it is asked.
 * `source` is a transcript path or its lines. A file holding several runs (a retried job appends a new
 * `meta` line) replays the last one. A hand-written transcript may hold only `response` lines with
 * `content` and `stop_reason`; ids, model and usage get defaults.
 */
export function createReplayClient(source: string | readonly string[], options: { name?: string } = {}): ReplayClient {
  const label = options.name ?? (typeof source === "string" ? source : "(inline transcript)");
  const lines = typeof source === "string" ? readLines(source) : source;
  const responses = parseResponses(lines, label);
  let served = 0;

  return {
    name: "replay",
    get remaining() {
      return responses.length - served;
    },
    create(request: MessageRequest, signal: AbortSignal): Promise<ModelMessage> {
      if (signal.aborted) return Promise.reject(new TackleError("aborted", "the model call was aborted"));
      const recorded = responses[served];
      if (recorded === undefined) {
        return Promise.reject(
          new TackleError(
            "replay_exhausted",
            `replay transcript ${label} has ${responses.length} responses; the run asked for response ${responses.length + 1}`,
            { retryable: false },
          ),
        );
      }
      served++;
      return Promise.resolve(completeMessage(recorded, served, request.model));
    },
  };
}

function readLines(path: string): string[] {
  try {
    return readFileSync(path, "utf8").split("\n");
  } catch (error) {
    throw new TackleError("not_found", `cannot read replay transcript ${path}: ${errorMessage(error)}`, { cause: error });
  }
}

function parseResponses(lines: readonly string[], label: string): RecordedMessage[] {
  let responses: RecordedMessage[] = [];
  lines.forEach((raw, index) => {
    if (raw.trim() === "") return;
    const lineNumber = index + 1;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw badLine(label, lineNumber, `not JSON (${errorMessage(error)})`);
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) throw badLine(label, lineNumber, z.prettifyError(parsed.error).replace(/\n+/g, "; "));
    if (parsed.data.type === "meta") responses = [];
    // The raw line, not zod's output: zod moves unknown keys last, and replay keeps the recorded order.
    if (parsed.data.type === "response") responses.push((json as { message: RecordedMessage }).message);
  });
  return responses;
}

function badLine(label: string, lineNumber: number, problem: string): TackleError {
  return new TackleError("payload_invalid", `replay transcript ${label} line ${lineNumber}: ${problem}`, {
    retryable: false,
  });
}

/**
 * A full SDK Message from a recorded one: recorded fields kept as they are (in their order, so a
 * replayed run's transcript matches the recording), missing ones filled. Deep-copied so callers
 * cannot alter the recording.
 */
function completeMessage(recorded: RecordedMessage, ordinal: number, requestedModel: string): ModelMessage {
  const copy = structuredClone(recorded);
  const content = copy.content.map((block, index) => {
    if (block.type === "text") return withDefaults(block, { citations: null });
    if (block.type === "tool_use") {
      return withDefaults(block, { id: `toolu_replay_${ordinal}_${index}`, input: {}, caller: { type: "direct" } });
    }
    return block;
  });
  const message = withDefaults(
    { ...copy, content, usage: withDefaults(copy.usage ?? {}, EMPTY_USAGE) },
    {
      id: `msg_replay_${ordinal}`,
      type: "message",
      role: "assistant",
      model: requestedModel,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
    },
  );
  return message as unknown as ModelMessage;
}

const EMPTY_USAGE = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_creation: null,
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: null,
  speed: null,
};

function withDefaults<T extends object>(value: T, defaults: Record<string, unknown>): T {
  const missing = Object.entries(defaults).filter(([key]) => !(key in value) || (value as Record<string, unknown>)[key] === undefined);
  return { ...value, ...Object.fromEntries(missing) };
}
