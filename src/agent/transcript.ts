import { appendFile, chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { MessageRequest, ModelMessage, ModelMessageParam, TokenUsage } from "./model-client.js";
import type { ToolCallResult } from "./tools/tool.js";
import { maskedJson, redactKnownTokens, type Masked, type Redactor } from "../util/redact.js";

/** Bumped when a line's meaning changes; readers refuse versions they do not know. */
export const TRANSCRIPT_VERSION = 2;

/** The key of the job's own agent; a subagent's is its Task call's place below it (`main/2/1`). */
export const MAIN_AGENT = "main";

/**
 * Why the model was called: a turn of an agent, the summary that compacts older turns, or a tool's
 * own call on the job's behalf (WebFetch answering its prompt over a page).
 */
export type CallPurpose = "turn" | "compaction" | "web_fetch";

export interface TranscriptEnd {
  reason: string;
  /** The human sentence the tracking comment shows. */
  message: string;
  turns: number;
  usage: TokenUsage;
  costUsd: number;
  error?: string;
}

/** What the agent loop records. `createTranscript` writes it as JSONL; tests may collect it in memory. */
export interface TranscriptSink {
  request(turn: number, purpose: CallPurpose, body: MessageRequest): Promise<void>;
  response(turn: number, purpose: CallPurpose, message: ModelMessage): Promise<void>;
  toolResults(turn: number, results: readonly ToolCallResult[]): Promise<void>;
  end(end: TranscriptEnd): Promise<void>;
  /**
   * The sink of a conversation below this one (a subagent, a tool's model call), keyed by its place in
   * the tree (`main/2/1`): its lines go in the same file, marked with that key. Absent: not recorded.
   */
  child?(agent: string): TranscriptSink;
}

/** A policy question put to a maintainer and how it was answered. */
export interface ApprovalRecord {
  /** The tool call that asked (`main/3/1`); its agent is the path without its last two parts. */
  call?: string;
  tool: string;
  reason: string;
  approved: boolean;
  by?: string;
  message?: string;
}

export interface TranscriptWriter extends TranscriptSink {
  readonly path: string;
  /** Records a policy question and its answer (an `approval` line). */
  approval(record: ApprovalRecord): Promise<void>;
  /** Resolves once every line written so far is on disk. */
  flush(): Promise<void>;
  /** Flushes; nothing else to release (every line is its own append). */
  close(): Promise<void>;
  child(agent: string): TranscriptSink;
}

export interface CreateTranscriptOptions {
  /** Directory of transcripts, normally `transcriptDir(TACKLE_HOME)`. Created when missing. */
  dir: string;
  jobId: string;
  model: string;
  /**
   * The job's redactor, applied to every string (keys and values) of every line before it is written.
   * @defaultValue redactKnownTokens
   */
  redact?: Redactor | undefined;
  /** @defaultValue Date.now */
  clock?: () => number;
  /**
   * Called with each line (redacted, without its newline) once it is on disk, in order: the job store's
   * copy, which the dashboard reads when the job ran on another machine.
   */
  onLine?: (line: Masked) => void;
}

export function transcriptDir(tackleHome: string): string {
  return join(tackleHome, "transcripts");
}

/** `<dir>/<jobId>.jsonl`, with characters that do not belong in a file name replaced by `_`. */
export function transcriptPath(dir: string, jobId: string): string {
  return join(dir, `${jobId.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`);
}

/**
 * Opens the job's transcript for appending and writes its `meta` line. Lines are only ever appended:
 * a retried job adds a second `meta` line and its own run after the first. See docs/transcript-format.md.
 */
export async function createTranscript(options: CreateTranscriptOptions): Promise<TranscriptWriter> {
  const redact = options.redact ?? redactKnownTokens;
  const clock = options.clock ?? Date.now;
  // The operator's alone (they hold everything the model saw): with TACKLE_SANDBOX=off as root,
  // TACKLE_HOME is reachable by the commands' uid, which reads whatever is world-readable there.
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  await chmod(options.dir, 0o700).catch(() => undefined);
  const path = transcriptPath(options.dir, options.jobId);

  let queue: Promise<void> = Promise.resolve();
  const write = (event: Record<string, unknown>): Promise<void> => {
    // Every line is masked here, whole, before it is written or handed on: the one way a line is made.
    const json = maskedJson(event, redact);
    const written = queue.then(async () => {
      await appendFile(path, `${json}\n`, { encoding: "utf8", mode: 0o600 });
      options.onLine?.(json);
    });
    queue = written.catch(() => undefined);
    return written;
  };
  await write({
    type: "meta",
    version: TRANSCRIPT_VERSION,
    jobId: options.jobId,
    model: options.model,
    startedAt: new Date(clock()).toISOString(),
  });

  const sinkFor = (agent: string): TranscriptSink => {
    const previous = new Map<CallPurpose, PreviousRequest>();
    return {
      request: (turn, purpose, body) => {
        const line = requestLine(agent, turn, purpose, body, previous.get(purpose));
        previous.set(purpose, { messages: body.messages.map(comparable), system: body.system, tools: body.tools });
        return write(line);
      },
      response: (turn, purpose, message) => write({ type: "response", agent, turn, purpose, message }),
      toolResults: (turn, results) => write({ type: "tool_results", agent, turn, results }),
      end: (end) => write({ type: "end", agent, ...end, endedAt: new Date(clock()).toISOString() }),
      child: (key) => sinkFor(key),
    };
  };
  return {
    path,
    flush: () => queue,
    close: () => queue,
    ...sinkFor(MAIN_AGENT),
    child: (key) => sinkFor(key),
    approval: (record) => write({ type: "approval", agent: agentOfCall(record.call), ...record }),
  };
}

/** `main/3/1` -> `main`; `main/2/1/4/2` -> `main/2/1`; no call: the main agent. */
function agentOfCall(call: string | undefined): string {
  const parts = call?.split("/") ?? [];
  return parts.length >= 3 ? parts.slice(0, -2).join("/") : MAIN_AGENT;
}

interface PreviousRequest {
  /** The previous request's messages, serialised without cache markers, for comparison. */
  messages: string[];
  system: MessageRequest["system"];
  tools: MessageRequest["tools"];
}

/**
 * A request line stores only the messages that differ from the previous request of the same purpose
 * (`messages_from` is the index of the first one stored), and `system` / `tools` only when they
 * changed, so a long run's transcript grows linearly rather than quadratically.
 */
function requestLine(agent: string, turn: number, purpose: CallPurpose, body: MessageRequest, previous: PreviousRequest | undefined): Record<string, unknown> {
  const { messages, system, tools, ...rest } = body;
  const current = messages.map(comparable);
  let from = 0;
  if (previous !== undefined) {
    while (from < current.length && from < previous.messages.length && current[from] === previous.messages[from]) {
      from++;
    }
  }
  const stored: Record<string, unknown> = { ...rest };
  if (system !== undefined && (previous === undefined || !sameJson(system, previous.system))) stored.system = system;
  if (tools !== undefined && (previous === undefined || !sameJson(tools, previous.tools))) stored.tools = tools;
  stored.messages = messages.slice(from);
  return { type: "request", agent, turn, purpose, messages_from: from, messages_count: messages.length, body: stored };
}

/**
 * Serialisations by message object. The loop hands over the same, never-mutated history objects every
 * turn, so each message is serialised once rather than once per later turn (quadratic over a long run).
 */
const comparableCache = new WeakMap<ModelMessageParam, string>();

function comparable(message: ModelMessageParam): string {
  let text = comparableCache.get(message);
  if (text === undefined) {
    text = JSON.stringify(message, (key, value: unknown) => (key === "cache_control" ? undefined : value));
    comparableCache.set(message, text);
  }
  return text;
}

function sameJson(a: unknown, b: unknown): boolean {
  // The loop hands over the same tool definitions and system prompt every turn: no need to serialise them.
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
