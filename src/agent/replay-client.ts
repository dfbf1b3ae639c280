import { readFileSync } from "node:fs";
import { z } from "zod";
import { TackleError, errorMessage } from "../errors/tackle-error.js";
import type { MessageRequest, ModelCall, ModelClient, ModelMessage } from "./model-client.js";
import { MAIN_AGENT } from "./transcript.js";

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
/** Version 1 transcripts have no `agent`: every line is the job's own agent's. */
const agentSchema = z.string().min(1).optional();

const lineSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("meta"), version: z.union([z.literal(1), z.literal(2)]) }),
  z.looseObject({ type: z.literal("request"), agent: agentSchema, turn: turnSchema, body: z.looseObject({}) }),
  z.looseObject({ type: z.literal("response"), agent: agentSchema, turn: turnSchema, message: messageSchema }),
  z.looseObject({ type: z.literal("tool_results"), agent: agentSchema, turn: turnSchema, results: z.array(z.unknown()) }),
  z.looseObject({ type: z.literal("end"), agent: agentSchema, reason: z.string() }),
  z.looseObject({ type: z.literal("approval"), agent: agentSchema, tool: z.string(), approved: z.boolean() }),
]);

type RecordedMessage = z.infer<typeof messageSchema>;

export interface ReplayClient extends ModelClient {
  /** Responses not served yet. */
  readonly remaining: number;
}

/**
 * A ModelClient that serves a transcript's `response` lines in order, whatever it is asked: each
 * conversation of the job (its agent, every subagent, a tool's model call, keyed by `agent`) gets its
 * own responses in their order, so a run whose subagents ran in parallel replays the same however
 * their calls interleave. `source` is a transcript path or its lines. A file holding several runs (a
 * retried job appends a new `meta` line) replays the last one. Version 1 lines (no `agent`) and a
 * hand-written transcript of nothing but `response` lines with `content` and `stop_reason` are the
 * job's own agent's; ids, model and usage get defaults.
 */
export function createReplayClient(source: string | readonly string[], options: { name?: string } = {}): ReplayClient {
  const label = options.name ?? (typeof source === "string" ? source : "(inline transcript)");
  const lines = typeof source === "string" ? readLines(source) : source;
  const byAgent = parseResponses(lines, label);
  const served = new Map<string, number>();
  let total = 0;
  for (const responses of byAgent.values()) total += responses.length;
  let servedTotal = 0;

  return {
    name: "replay",
    get remaining() {
      return total - servedTotal;
    },
    create(request: MessageRequest, signal: AbortSignal, call?: ModelCall): Promise<ModelMessage> {
      if (signal.aborted) return Promise.reject(new TackleError("aborted", "the model call was aborted"));
      const agent = call?.agent ?? MAIN_AGENT;
      const responses = byAgent.get(agent) ?? [];
      const index = served.get(agent) ?? 0;
      const recorded = responses[index];
      if (recorded === undefined) {
        const whose = agent === MAIN_AGENT ? "" : ` for ${agent}`;
        return Promise.reject(
          new TackleError(
            "replay_exhausted",
            `replay transcript ${label} has ${responses.length} responses${whose}; the run asked for response ${responses.length + 1}${whose}`,
            { retryable: false },
          ),
        );
      }
      served.set(agent, index + 1);
      servedTotal++;
      const ordinal = agent === MAIN_AGENT ? index + 1 : `${agent.replace(/\//g, "_")}_${index + 1}`;
      return Promise.resolve(completeMessage(recorded, ordinal, request.model));
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

function parseResponses(lines: readonly string[], label: string): Map<string, RecordedMessage[]> {
  let responses = new Map<string, RecordedMessage[]>();
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
    if (parsed.data.type === "meta") responses = new Map();
    if (parsed.data.type === "response") {
      const agent = parsed.data.agent ?? MAIN_AGENT;
      const list = responses.get(agent) ?? [];
      // The raw line, not zod's output: zod moves unknown keys last, and replay keeps the recorded order.
      list.push((json as { message: RecordedMessage }).message);
      responses.set(agent, list);
    }
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
function completeMessage(recorded: RecordedMessage, ordinal: number | string, requestedModel: string): ModelMessage {
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
