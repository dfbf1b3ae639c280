import type Anthropic from "@anthropic-ai/sdk";
import { errorMessage, isTackleError } from "../errors/tackle-error.js";
import { buildCompactionRequest, compactedHistory, planCompaction, summaryOf } from "./compaction.js";
import type { MessageRequest, ModelClient, ModelMessage, ModelMessageParam, TokenUsage } from "./model-client.js";
import type { Todo } from "./ports.js";
import { assembleRequest } from "./prompt/assemble-request.js";
import { renderState } from "./prompt/render-state.js";
import { deadlineSignal } from "./deadline-signal.js";
import { createSpend, type Spend } from "./spend.js";
import type { ToolCall, ToolCallResult, ToolContext, ToolRunner } from "./tools/tool.js";
import { MAIN_AGENT, type CallPurpose, type TranscriptSink } from "./transcript.js";
import type { Masked } from "../util/redact.js";

type ContentBlockParam = Anthropic.Messages.ContentBlockParam;

export type AgentEndReason = "task_done" | "no_tool_calls" | "max_turns" | "max_cost" | "deadline" | "aborted" | "model_error";

export interface AgentBudgets {
  /** Model turns (compaction calls do not count). */
  maxTurns: number;
  /** `max_tokens` of every turn. */
  maxOutputTokensPerTurn: number;
  /** The run stops before a turn that would likely take the job's cost (its `spend`) past this. */
  maxCostUsd: number;
  /** Epoch milliseconds, on `clock`. A model call in flight is cut when it passes. */
  deadline: number;
}

export interface AgentResult {
  reason: AgentEndReason;
  /** One human sentence for the tracking comment. */
  reasonText: string;
  /** task_done's summary, or the model's last words when it stopped calling tools. */
  summary?: string;
  /** Model turns run. */
  turns: number;
  /** This run's own model usage and cost (the job's totals are in its `spend`). */
  usage: TokenUsage;
  costUsd: number;
  /** What went wrong, for model_error. */
  error?: string;
  /** For model_error: whether another attempt of the job could succeed. */
  retryable?: boolean;
}

export type AgentProgressEvent =
  | { type: "turn_started"; turn: number }
  | { type: "turn_finished"; turn: number; stopReason: string | null; toolCalls: number; costUsd: number }
  | {
      type: "tool_calls";
      turn: number;
      calls: Array<{ name: string; args: string }>;
      /** One line for a status display, e.g. "Read src/a.ts, Bash npm test". */
      summary: string;
    }
  | { type: "todos_changed"; turn: number; todos: Todo[] }
  | { type: "nudged"; turn: number }
  | { type: "compacted"; turn: number; summarizedMessages: number; keptMessages: number };

export interface RunAgentOptions {
  model: ModelClient;
  /** The model id sent in every request and used for pricing. */
  modelName: string;
  tools: ToolRunner;
  /** Handed to every tool call; `ctx.state` is the session state the loop renders and watches. */
  ctx: ToolContext;
  /** From buildSystemPrompt: stable for the whole run. */
  system: string;
  /** From buildTaskMessage: the first user message. */
  /**
   * The conversation's first message (the task, the memory index, the setup report): masked, like every
   * tool result after it, so the model never reads a secret the job holds.
   */
  initialMessage: Masked;
  budgets: AgentBudgets;
  transcript?: TranscriptSink;
  /** @defaultValue Date.now */
  clock?: () => number;
  signal: AbortSignal;
  onProgress?: (event: AgentProgressEvent) => void;
  /** @defaultValue 200000 */
  contextWindowTokens?: number;
  /** Compact when the estimated context passes this share of the window. @defaultValue 0.8 */
  compactAtRatio?: number;
  /** Turns kept verbatim by compaction. @defaultValue 3 */
  keepTurnsOnCompaction?: number;
  /** Which conversation of the job this is (`main`, or a subagent's place: `main/2/1`). @defaultValue "main" */
  agent?: string;
  /** How deep it is: 0 for the job's agent, 1 for its subagents, … @defaultValue 0 */
  depth?: number;
  /** The job's meter, shared with its subagents: the cost budget is the job's. @defaultValue a meter of its own */
  spend?: Spend;
  /**
   * Text that arrived between turns (the job's background events), sent with the next user message.
   * Called once per turn; undefined when there is none. @defaultValue none
   */
  pendingEvents?: () => string | undefined;
  /**
   * A subagent's way to end: a reply without tool calls is its final answer (no reminder first).
   * @defaultValue false
   */
  endOnText?: boolean;
}

export const NUDGE_TEXT =
  "You replied without calling a tool. Use the tools to continue the work, or call task_done with a summary if the task is finished or cannot be finished.";

export const CUT_OFF_REPLY_TEXT =
  "Your reply was cut off by the output token limit. Keep replies short and continue with tool calls, or call task_done if the task is finished.";

export const CUT_OFF_TEXT =
  "This tool call was cut off by the output token limit before its input was complete, so it was not run. Retry it with a smaller input, for example split a large Write into a short Write followed by Edit calls that add the rest.";

/**
 * Runs the agent: model turn, tool calls, results, repeat, until task_done, a budget, the deadline,
 * an abort, a model error, or two replies in a row without tool calls. Never throws for those; the
 * result says why it ended. The request layout keeps a byte-stable cached prefix (see assembleRequest).
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const run = new AgentRun(options);
  try {
    return await run.loop();
  } catch (error) {
    if (options.signal.aborted) return run.end("aborted");
    await run.record(() => options.transcript?.end({ ...run.totals(), reason: "crashed", message: errorMessage(error) }));
    throw error;
  }
}

type Ending = { ending: AgentResult };

class AgentRun {
  private history: ModelMessageParam[];
  private turn = 0;
  private usage: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  private costUsd = 0;
  private readonly spend: Spend;
  private readonly agent: string;
  private lastTurnCostUsd = 0;
  private lastCallCost = 0;
  /** Estimated tokens the next request will carry; 0 until the first response. */
  private contextTokens = 0;
  private nudged = false;
  private lastText: string | undefined;
  private transcriptFailed = false;
  private readonly clock: () => number;

  constructor(private readonly options: RunAgentOptions) {
    this.clock = options.clock ?? Date.now;
    this.spend = options.spend ?? createSpend();
    this.agent = options.agent ?? MAIN_AGENT;
    this.history = [{ role: "user", content: [{ type: "text", text: options.initialMessage }] }];
  }

  async loop(): Promise<AgentResult> {
    const { budgets, signal, ctx } = this.options;
    for (;;) {
      if (signal.aborted) return this.end("aborted");
      if (this.clock() >= budgets.deadline) return this.end("deadline");
      if (this.turn >= budgets.maxTurns) return this.end("max_turns");
      // Calls in flight in other conversations of the job (parallel subagents) count as spent.
      const spent = this.spend.costUsd + this.spend.reserved;
      const estimate = this.turnEstimate();
      if (spent >= budgets.maxCostUsd || spent + estimate > budgets.maxCostUsd) {
        return this.end("max_cost");
      }
      if (this.contextTokens > (this.options.compactAtRatio ?? 0.8) * (this.options.contextWindowTokens ?? 200_000)) {
        const compacted = await this.compact();
        if (compacted !== undefined) return compacted.ending;
        continue; // re-check the budgets: compaction cost money and time
      }

      this.turn++;
      if (this.agent !== MAIN_AGENT) this.spend.countSubagentTurn();
      this.emit({ type: "turn_started", turn: this.turn });
      const release = this.spend.reserve(estimate);
      const response = await this.callModel("turn", this.turnRequest()).finally(release);
      if ("ending" in response) return response.ending;
      this.lastTurnCostUsd = this.lastCallCost;
      this.history.push({ role: "assistant", content: assistantContent(response) });
      this.lastText = textOf(response) ?? this.lastText;

      const calls = toolCalls(response);
      this.emit({
        type: "turn_finished",
        turn: this.turn,
        stopReason: response.stop_reason,
        toolCalls: calls.length,
        costUsd: this.costUsd,
      });
      this.contextTokens = promptTokens(response) + response.usage.output_tokens;

      if (calls.length === 0) {
        if (this.nudged || this.options.endOnText === true) return this.end("no_tool_calls");
        this.nudged = true;
        this.emit({ type: "nudged", turn: this.turn });
        const nudge = response.stop_reason === "max_tokens" ? CUT_OFF_REPLY_TEXT : NUDGE_TEXT;
        this.history.push({ role: "user", content: [{ type: "text", text: nudge }, ...this.eventBlocks()] });
        continue;
      }
      this.nudged = false;

      const results = await this.runTools(calls, cutOffCallId(response));
      this.history.push({ role: "user", content: [...results.map(toResultBlock), ...this.eventBlocks()] });
      this.contextTokens += Math.ceil(results.reduce((sum, r) => sum + r.content.length, 0) / 4);
      if (ctx.state.done !== undefined) return this.end("task_done");
    }
  }

  /** The job's background events since the last turn, as a block of the next user message. */
  private eventBlocks(): ContentBlockParam[] {
    const text = this.options.pendingEvents?.();
    return text === undefined ? [] : [{ type: "text", text }];
  }

  /** What the next turn will likely cost: this conversation's last turn, or the job's mean response before it has one. */
  private turnEstimate(): number {
    return this.lastTurnCostUsd > 0 ? this.lastTurnCostUsd : this.spend.meanCostUsd;
  }

  private turnRequest(): MessageRequest {
    const { budgets, ctx } = this.options;
    return assembleRequest({
      model: this.options.modelName,
      maxTokens: budgets.maxOutputTokensPerTurn,
      system: this.options.system,
      tools: this.options.tools.definitions(),
      ...(this.options.tools.stableCount === undefined ? {} : { stableTools: this.options.tools.stableCount }),
      history: this.history,
      stateText: renderState(ctx.state, {
        turn: this.turn,
        maxTurns: budgets.maxTurns,
        costUsd: this.spend.costUsd,
        maxCostUsd: budgets.maxCostUsd,
        msLeft: budgets.deadline - this.clock(),
      }),
    });
  }

  /** One model call with the deadline enforced, usage and cost counted, and both sides recorded. */
  private async callModel(purpose: CallPurpose, request: MessageRequest): Promise<ModelMessage | Ending> {
    const { signal, budgets, transcript } = this.options;
    await this.record(() => transcript?.request(this.turn, purpose, request));

    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let deadlineHit = false;
    const msLeft = budgets.deadline - this.clock();
    // setTimeout fires at once past 2^31-1 ms; a deadline that far off needs no timer.
    const timer =
      msLeft < 2 ** 31 - 1
        ? setTimeout(
            () => {
              deadlineHit = true;
              controller.abort();
            },
            Math.max(0, msLeft),
          )
        : undefined;

    let response: ModelMessage;
    try {
      response = await this.options.model.create(request, controller.signal, { agent: this.agent });
    } catch (error) {
      if (signal.aborted) return { ending: await this.end("aborted") };
      if (deadlineHit) return { ending: await this.end("deadline") };
      if (isTackleError(error, "aborted")) return { ending: await this.end("aborted") };
      const retryable = isTackleError(error) ? error.retryable : false;
      return { ending: await this.end("model_error", { error: errorMessage(error), retryable }) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }

    this.lastCallCost = this.spend.add(this.options.modelName, response.usage);
    this.costUsd += this.lastCallCost;
    this.usage.input += response.usage.input_tokens;
    this.usage.output += response.usage.output_tokens;
    this.usage.cacheRead += response.usage.cache_read_input_tokens ?? 0;
    this.usage.cacheWrite += response.usage.cache_creation_input_tokens ?? 0;
    await this.record(() => transcript?.response(this.turn, purpose, response));
    return response;
  }

  /** Runs one reply's calls at once; a call cut off by max_tokens is answered with an error instead. */
  private async runTools(calls: ToolCall[], cutOffId: string | undefined): Promise<ToolCallResult[]> {
    const { tools, ctx } = this.options;
    const shown = calls.map((c) => ({ name: c.name, args: shortArgs(c.input) }));
    const summary = shown.map((c) => (c.args === "" || c.args === "{}" ? c.name : `${c.name} ${c.args}`)).join(", ");
    this.emit({ type: "tool_calls", turn: this.turn, calls: shown, summary });
    const todosBefore = JSON.stringify(ctx.state.todos);

    const runnable = calls.filter((call) => call.id !== cutOffId);
    // The calls (and their policy checks) end with the job's time, not only with its signal.
    const cut = deadlineSignal(ctx.signal, this.options.budgets.deadline, this.clock);
    const turnCtx: ToolContext = { ...ctx, signal: cut.signal, callPath: `${this.agent}/${this.turn}`, depth: this.options.depth ?? 0 };
    let ran: ToolCallResult[] = [];
    try {
      if (runnable.length > 0) ran = await tools.runCalls(runnable, turnCtx);
    } finally {
      cut.stop();
    }
    const byId = new Map(ran.map((result) => [result.tool_use_id, result]));
    const results = calls.map(
      (call): ToolCallResult =>
        call.id === cutOffId
          ? { tool_use_id: call.id, content: CUT_OFF_TEXT, is_error: true }
          : (byId.get(call.id) ?? { tool_use_id: call.id, content: "The tool runner returned no result for this call.", is_error: true }),
    );

    await this.record(() => this.options.transcript?.toolResults(this.turn, results));
    if (JSON.stringify(ctx.state.todos) !== todosBefore) {
      this.emit({ type: "todos_changed", turn: this.turn, todos: structuredClone(ctx.state.todos) });
    }
    return results;
  }

  /** Summarises older turns into one message. Returns an ending only when the model call failed. */
  private async compact(): Promise<Ending | undefined> {
    const plan = planCompaction(this.history, this.options.keepTurnsOnCompaction ?? 3);
    this.contextTokens = 0; // re-estimated from the next response, so a failed plan is not retried every turn
    if (plan === null) {
      this.options.ctx.logger.warn({ turn: this.turn }, "context is nearly full but there is nothing old enough to compact");
      return undefined;
    }
    const request = buildCompactionRequest({
      model: this.options.modelName,
      head: plan.head,
      maxTokens: Math.min(4_096, this.options.budgets.maxOutputTokensPerTurn),
      maxChars: (this.options.contextWindowTokens ?? 200_000) * 2,
    });
    const response = await this.callModel("compaction", request);
    if ("ending" in response) return response;
    this.history = compactedHistory(this.options.initialMessage, summaryOf(response), plan.tail);
    this.emit({ type: "compacted", turn: this.turn, summarizedMessages: plan.head.length, keptMessages: plan.tail.length });
    return undefined;
  }

  totals(): { turns: number; usage: TokenUsage; costUsd: number } {
    return { turns: this.turn, usage: { ...this.usage }, costUsd: this.costUsd };
  }

  async end(reason: AgentEndReason, failure: { error?: string; retryable?: boolean } = {}): Promise<AgentResult> {
    const done = this.options.ctx.state.done;
    const lastWords = reason === "no_tool_calls" || this.options.endOnText === true;
    const summary = reason === "task_done" ? done?.summary : lastWords ? this.lastText : undefined;
    const result: AgentResult = {
      reason,
      reasonText: describeEnding(reason, this.options.budgets, this.spend.costUsd, this.turn, failure),
      ...(summary !== undefined && { summary }),
      ...this.totals(),
      ...(failure.error !== undefined && { error: failure.error }),
      ...(failure.retryable !== undefined && { retryable: failure.retryable }),
    };
    await this.record(() =>
      this.options.transcript?.end({
        reason,
        message: result.reasonText,
        ...this.totals(),
        ...(failure.error !== undefined && { error: failure.error }),
      }),
    );
    return result;
  }

  /**
   * Transcript writes never end a run, nor hold it up: the line is made now (a snapshot), the file
   * write goes on behind the loop, and the session awaits them all when it closes the transcript.
   * The first failure is logged, later ones are ignored.
   */
  async record(write: () => Promise<void> | undefined): Promise<void> {
    const failed = (error: unknown): void => {
      if (!this.transcriptFailed) this.options.ctx.logger.warn({ err: error }, "could not write the transcript");
      this.transcriptFailed = true;
    };
    try {
      write()?.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  private emit(event: AgentProgressEvent): void {
    try {
      this.options.onProgress?.(event);
    } catch (error) {
      this.options.ctx.logger.warn({ err: error, event: event.type }, "onProgress listener failed");
    }
  }
}

export function describeEnding(
  reason: AgentEndReason,
  budgets: AgentBudgets,
  costUsd: number,
  turns: number,
  failure: { error?: string; retryable?: boolean } = {},
): string {
  switch (reason) {
    case "task_done":
      return `The agent finished the task in ${plural(turns, "turn")}.`;
    case "no_tool_calls":
      return "The agent stopped using its tools without calling task_done, even after a reminder, so the run ended.";
    case "max_turns":
      return `The run stopped after reaching its limit of ${plural(budgets.maxTurns, "turn")}.`;
    case "max_cost":
      return `The run stopped before going over its cost budget of $${budgets.maxCostUsd.toFixed(2)} (spent $${costUsd.toFixed(2)}).`;
    case "deadline":
      return "The run stopped at its time limit.";
    case "aborted":
      return "The run was cancelled.";
    case "model_error":
      return `The model API failed${failure.retryable === true ? " with a temporary error; the job can be retried" : ""}: ${failure.error ?? "unknown error"}.`;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function toolCalls(response: ModelMessage): ToolCall[] {
  return response.content.flatMap((block): ToolCall[] =>
    block.type === "tool_use"
      ? [{ id: block.id, name: block.name, input: block.input, ...(block.invalid_input !== undefined && { invalidInput: block.invalid_input }) }]
      : [],
  );
}

/**
 * A reply stopped by the output limit was cut inside its last block; when that block is a tool call,
 * its input may be partial (or happen to parse while incomplete), so it must not run.
 */
function cutOffCallId(response: ModelMessage): string | undefined {
  if (response.stop_reason !== "max_tokens" && response.stop_reason !== "model_context_window_exceeded") return undefined;
  const last = response.content.at(-1);
  return last?.type === "tool_use" ? last.id : undefined;
}

/** The reply as it goes back into the history: deterministic, so the cached prefix stays byte-stable. */
function assistantContent(response: ModelMessage): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of response.content) {
    switch (block.type) {
      case "text":
        // The API refuses empty text blocks.
        if (block.text !== "") blocks.push({ type: "text", text: block.text });
        break;
      case "tool_use":
        blocks.push({ type: "tool_use", id: block.id, name: block.name, input: isPlainObject(block.input) ? block.input : {} });
        break;
      case "thinking":
        blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
        break;
      case "redacted_thinking":
        blocks.push({ type: "redacted_thinking", data: block.data });
        break;
      default:
        blocks.push(block as unknown as ContentBlockParam);
    }
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: "(empty reply)" });
  return blocks;
}

function toResultBlock(result: ToolCallResult): ContentBlockParam {
  return {
    type: "tool_result",
    tool_use_id: result.tool_use_id,
    content: result.content === "" ? "(no output)" : result.content,
    ...(result.is_error && { is_error: true }),
  };
}

function textOf(response: ModelMessage): string | undefined {
  const text = response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  return text === "" ? undefined : text;
}

function promptTokens(response: ModelMessage): number {
  const usage = response.usage;
  return usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const ARG_KEYS = ["file_path", "command", "pattern", "url", "title", "message", "summary", "description", "name"];

/** A short, one-line view of a call's input for progress reports. */
export function shortArgs(input: unknown, max = 80): string {
  let text: string;
  if (isPlainObject(input)) {
    const key = ARG_KEYS.find((k) => typeof input[k] === "string");
    text = key !== undefined ? String(input[key]) : JSON.stringify(input);
  } else {
    text = JSON.stringify(input) ?? "";
  }
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
