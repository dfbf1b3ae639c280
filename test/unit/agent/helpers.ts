import type { MessageRequest, ModelClient, ModelMessage } from "../../../src/agent/model-client.js";
import type { SessionState } from "../../../src/agent/ports.js";
import type { ToolCall, ToolCallResult, ToolContext, ToolDefinition, ToolRunner } from "../../../src/agent/tools/tool.js";
import { isTackleError, type TackleError } from "../../../src/errors/tackle-error.js";
import { silentLogger } from "../../../src/logging/logger.js";

type Block = ModelMessage["content"][number];

export function text(value: string): Block {
  return { type: "text", text: value, citations: null };
}

let toolIds = 0;
export function toolUse(name: string, input: unknown, id = `toolu_${++toolIds}`): Block {
  return { type: "tool_use", id, name, input, caller: { type: "direct" } };
}

export interface ReplyOptions {
  stop_reason?: ModelMessage["stop_reason"];
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export function reply(content: Block[], options: ReplyOptions = {}): ModelMessage {
  const hasTool = content.some((b) => b.type === "tool_use");
  return {
    id: "msg_test",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content,
    stop_reason: options.stop_reason ?? (hasTool ? "tool_use" : "end_turn"),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: options.input_tokens ?? 10,
      output_tokens: options.output_tokens ?? 5,
      cache_read_input_tokens: options.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: options.cache_creation_input_tokens ?? 0,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: null,
      speed: null,
    },
  };
}

export type Script = Array<ModelMessage | Error | ((request: MessageRequest, signal: AbortSignal) => Promise<ModelMessage>)>;

export interface ScriptedModel extends ModelClient {
  /** Deep copies of the requests, taken when each call was made. */
  requests: MessageRequest[];
  /** The request objects as the loop passed them (to detect later mutation). */
  raw: MessageRequest[];
}

/** A model that answers from a script, in order, and records what it was asked. */
export function scriptedModel(script: Script): ScriptedModel {
  const requests: MessageRequest[] = [];
  const raw: MessageRequest[] = [];
  let next = 0;
  return {
    name: "scripted",
    requests,
    raw,
    async create(request, signal) {
      requests.push(structuredClone(request));
      raw.push(request);
      const step = script[next++];
      if (step === undefined) throw new Error(`scripted model: no reply ${next}`);
      if (step instanceof Error) throw step;
      if (typeof step === "function") return step(request, signal);
      return structuredClone(step);
    },
  };
}

export type ToolImpl = (input: Record<string, unknown>, ctx: ToolContext) => string | Promise<string>;

export interface TestRunner extends ToolRunner {
  /** Each runCalls batch, as received. */
  batches: ToolCall[][];
}

const BASE_TOOLS: Record<string, ToolImpl> = {
  task_done: (input, ctx) => {
    ctx.state.done = { summary: String(input.summary ?? ""), filesChanged: [] };
    return "done";
  },
  TodoWrite: (input, ctx) => {
    ctx.state.todos = input.todos as SessionState["todos"];
    return "todos updated";
  },
  NoteWrite: (input, ctx) => {
    ctx.state.notes = input.notes as string[];
    return "notes updated";
  },
  Echo: (input) => String(input.text ?? ""),
  Write: (input) => `wrote ${String(input.file_path)}`,
};

/** A tiny ToolRunner: runs calls one by one in order; unknown tools come back as is_error. */
export function testRunner(extra: Record<string, ToolImpl> = {}, descriptionSize = 40): TestRunner {
  const impls = { ...BASE_TOOLS, ...extra };
  const batches: ToolCall[][] = [];
  const definitions: ToolDefinition[] = Object.keys(impls).map((name) => ({
    name,
    description: `${name}: ${"describes the tool in detail. ".repeat(Math.ceil(descriptionSize / 30))}`.slice(0, descriptionSize + name.length),
    input_schema: { type: "object", properties: { text: { type: "string" } } },
  }));
  return {
    batches,
    definitions: () => definitions.map((d) => structuredClone(d)),
    async runCalls(calls, ctx): Promise<ToolCallResult[]> {
      batches.push([...calls]);
      const results: ToolCallResult[] = [];
      for (const call of calls) {
        const impl = impls[call.name];
        if (impl === undefined) {
          results.push({ tool_use_id: call.id, content: `unknown tool ${call.name}`, is_error: true });
          continue;
        }
        results.push({ tool_use_id: call.id, content: await impl(call.input as Record<string, unknown>, ctx), is_error: false });
      }
      return results;
    },
  };
}

function unused(port: string): never {
  throw new Error(`the ${port} port is not used in these tests`);
}

export function testContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  const port = (name: string) => new Proxy({}, { get: () => () => unused(name) });
  return {
    fs: port("fs") as ToolContext["fs"],
    exec: port("exec") as ToolContext["exec"],
    search: port("search") as ToolContext["search"],
    git: port("git") as ToolContext["git"],
    issue: port("issue") as ToolContext["issue"],
    pulls: port("pulls") as ToolContext["pulls"],
    state: { todos: [], notes: [] },
    baseBranch: "main",
    signal,
    logger: silentLogger,
  };
}

export const BUDGETS = { maxTurns: 50, maxOutputTokensPerTurn: 4096, maxCostUsd: 100, deadline: Number.MAX_SAFE_INTEGER };

/** The text blocks and tool results of a request's last user message, in order. */
export function lastUserBlocks(request: MessageRequest): Array<Record<string, unknown>> {
  const last = request.messages.at(-1);
  if (last === undefined || typeof last.content === "string") throw new Error("no block content");
  return last.content as unknown as Array<Record<string, unknown>>;
}

/** The TackleError `promise` rejects with; anything else (or no rejection) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<TackleError> {
  try {
    await promise;
  } catch (error) {
    if (isTackleError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}
