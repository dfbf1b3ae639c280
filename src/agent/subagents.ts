import type { Logger } from "../logging/logger.js";
import { runAgent, type AgentProgressEvent, type AgentResult } from "./loop.js";
import type { ModelClient } from "./model-client.js";
import type { Spend } from "./spend.js";
import type { ToolRegistry } from "./tools/registry.js";
import type { Tool, ToolContext, ToolResult } from "./tools/tool.js";
import type { TranscriptSink } from "./transcript.js";
import { truncateText } from "./prompt/fence-untrusted.js";
import type { Redactor } from "../util/redact.js";

/** Deepest a subagent may sit below the job's agent (depth 0): at this depth there is no Task tool. */
export const MAX_SUBAGENT_DEPTH = 3;
/** Characters of a subagent's final answer returned to its parent. */
export const SUBAGENT_RESULT_CHARS = 20_000;
/** Turns a subagent may take when neither its type nor the call says. */
export const DEFAULT_SUBAGENT_TURNS = 25;
/**
 * Read-only subagents of a job running at once; more wait their turn. Each checks the job's budget
 * before its turns, so this also bounds how far parallel first turns can overshoot it.
 */
export const MAX_PARALLEL_SUBAGENTS = 4;

/** A kind of subagent the Task tool offers: built in, or from the repository's `.tackle/agents/`. */
export interface SubagentType {
  name: string;
  description: string;
  /** Tool names it gets, in the order offered (Task is dropped at the deepest level). */
  tools: readonly string[];
  /** Its whole system prompt: stable per type, so its calls share one cached prefix. */
  system: string;
  /** Model id; absent: the job's. */
  model?: string;
  /** Most turns a call may give it. */
  maxTurns: number;
}

export interface SubagentRequest {
  type: string;
  description: string;
  prompt: string;
  maxTurns?: number;
}

/** What the tracking comment shows of a subagent. */
export interface SubagentEvent {
  /** Its place in the job's tree, e.g. `main/2/1`. */
  path: string;
  depth: number;
  type: string;
  description: string;
  status: "running" | "done" | "failed";
  turns: number;
  costUsd: number;
}

/** Runs subagents for the Task tool: each its own conversation, over the job's workspace, policy, budgets and signal. */
export interface SubagentPort {
  run(request: SubagentRequest, ctx: ToolContext): Promise<ToolResult>;
}

export interface SubagentsOptions {
  types: readonly SubagentType[];
  /** Every tool a subagent may get, by name. */
  tools: ReadonlyMap<string, Tool>;
  /** A registry over these tools, sharing the job's policy engine and approval gate. */
  registry: (tools: Tool[]) => ToolRegistry;
  model: (modelName: string) => ModelClient;
  /** The job's model, for types that do not name one. */
  modelName: string;
  spend: Spend;
  budgets: { maxOutputTokensPerTurn: number; maxCostUsd: number; deadline: number };
  clock: () => number;
  /** The job's transcript; each subagent writes under its own key. */
  transcript?: TranscriptSink;
  logger: Logger;
  /** The job's redactor: a subagent's first message (the parent model's prompt) is masked like the job's. */
  redact: Redactor;
  onEvent?: (event: SubagentEvent) => void;
  /**
   * Whether a type only reads (its calls run in parallel, bounded by MAX_PARALLEL_SUBAGENTS). Such a type
   * has no Task tool, so a running one never waits for a slot a child needs. @defaultValue none
   */
  isReadOnly?: (type: string) => boolean;
}

export function createSubagents(options: SubagentsOptions): SubagentPort {
  const byName = new Map(options.types.map((type) => [type.name, type]));
  const slots = createSlots(MAX_PARALLEL_SUBAGENTS);
  const port: SubagentPort = {
    async run(request, ctx) {
      const type = byName.get(request.type);
      if (type === undefined) {
        return { content: `Unknown subagent_type "${request.type}". Available: ${[...byName.keys()].join(", ")}.`, isError: true };
      }
      const depth = (ctx.depth ?? 0) + 1;
      if (depth > MAX_SUBAGENT_DEPTH) {
        return { content: `Subagents may nest at most ${MAX_SUBAGENT_DEPTH} deep; do this part yourself.`, isError: true };
      }
      const path = ctx.callPath ?? `${depth}`;
      const names = type.tools.filter((name) => name !== "Task" || depth < MAX_SUBAGENT_DEPTH);
      const tools = names.flatMap((name) => options.tools.get(name) ?? []);
      const maxTurns = Math.min(request.maxTurns ?? type.maxTurns, type.maxTurns);
      const modelName = type.model ?? options.modelName;
      const event = (status: SubagentEvent["status"], turns: number, costUsd: number): void =>
        options.onEvent?.({ path, depth, type: type.name, description: request.description, status, turns, costUsd });
      event("running", 0, 0);
      const child: ToolContext = {
        ...ctx,
        state: { todos: [], notes: [] },
        depth,
        subagents: port,
      };
      delete child.memory;
      delete child.skills;
      delete child.mcp;
      delete child.background;
      delete child.worktrees;
      delete child.callPath;
      const sink = options.transcript?.child?.(path);
      const release = options.isReadOnly?.(type.name) === true ? await slots.take(ctx.signal) : () => undefined;
      const result = await runAgent({
        model: options.model(modelName),
        modelName,
        tools: options.registry(tools),
        ctx: child,
        system: type.system,
        initialMessage: options.redact(taskMessage(request)),
        budgets: { ...options.budgets, maxTurns },
        ...(sink === undefined ? {} : { transcript: sink }),
        clock: options.clock,
        signal: ctx.signal,
        agent: path,
        depth,
        spend: options.spend,
        endOnText: true,
        onProgress: (progress: AgentProgressEvent) => {
          if (progress.type === "turn_finished") event("running", progress.turn, progress.costUsd);
        },
      }).finally(release);
      const failed = result.reason !== "no_tool_calls";
      event(failed ? "failed" : "done", result.turns, result.costUsd);
      options.logger.info({ subagent: path, type: type.name, reason: result.reason, turns: result.turns, costUsd: result.costUsd }, "subagent finished");
      return { content: report(type.name, result, maxTurns), ...(failed && result.reason !== "max_turns" ? { isError: true } : {}) };
    },
  };
  return port;
}

/** A counting semaphore; a waiter whose signal fires goes on at once (its run then ends as aborted). */
function createSlots(size: number): { take(signal: AbortSignal): Promise<() => void> } {
  let free = size;
  const waiting: Array<() => void> = [];
  const give = (): void => {
    const next = waiting.shift();
    if (next === undefined) free++;
    else next();
  };
  return {
    take(signal) {
      if (free > 0) {
        free--;
        return Promise.resolve(once(give));
      }
      return new Promise((resolve) => {
        const granted = () => {
          signal.removeEventListener("abort", aborted);
          resolve(once(give));
        };
        const aborted = () => {
          const index = waiting.indexOf(granted);
          if (index !== -1) waiting.splice(index, 1);
          resolve(() => undefined);
        };
        waiting.push(granted);
        signal.addEventListener("abort", aborted, { once: true });
      });
    },
  };
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}

function taskMessage(request: SubagentRequest): string {
  return `Your task, from the agent that started you: ${request.description}\n\n${request.prompt}\n\nWhen you are done, reply with your report as plain text, without a tool call.`;
}

/** The subagent's answer as its parent sees it, with how it ended. */
function report(type: string, result: AgentResult, maxTurns: number): string {
  const footer = `[subagent ${type}: ${result.turns} turn${result.turns === 1 ? "" : "s"}, $${result.costUsd.toFixed(4)}]`;
  const answer = result.summary === undefined ? undefined : truncateText(result.summary, SUBAGENT_RESULT_CHARS);
  if (result.reason === "no_tool_calls") return `${answer ?? "(no answer)"}\n\n${footer}`;
  const why =
    result.reason === "max_turns"
      ? `The subagent used its ${maxTurns} turns without giving its final answer; do the rest yourself or start it again with a narrower task.`
      : `The subagent stopped before answering: ${result.reasonText}`;
  return `${why}\n\n${footer}`;
}
