import { z } from "zod";
import { errorMessage, isTackleError } from "../../errors/index.js";
import type { Logger } from "../../logging/logger.js";
import { cutMasked, redactKnownTokens, type Redactor } from "../../util/redact.js";
import type { InvalidToolInput } from "../model-client.js";
import type { FsPort } from "../ports.js";
import type { ApprovalAnswer, ApprovalHandler } from "../policy/approval.js";
import { createApprovalGate, type ApprovalGate } from "../policy/approval-gate.js";
import type { PolicyEngine } from "../policy/policy-engine.js";
import {
  assertDeclaresEffects,
  isReadOnly,
  isReadOnlyCall,
  type PolicyDecision,
  type Tool,
  type ToolCall,
  type ToolCallResult,
  type ToolContext,
  type ToolDefinition,
  type ToolRunner,
} from "./tool.js";
import type { ToolHooks } from "./tool-hooks.js";
import { canonicalAction, type CanonicalAction } from "./canonical-action.js";
import { hookSources, outsideSourcesOf } from "./outside-sources.js";
import { withDeclaredCommands } from "./with-declared-commands.js";

export interface ToolRegistryOptions {
  policy: PolicyEngine;
  approval: ApprovalHandler;
  /**
   * The job's shared way to a maintainer (one question at a time, approvals remembered by key); a job's
   * subagents pass their parent's. @defaultValue a gate of its own over `approval`
   */
  gate?: ApprovalGate;
  /**
   * The job's redactor (its secrets by value and the known token formats), applied to every result
   * before it is cut to size. @defaultValue redactKnownTokens
   */
  redact?: Redactor;
  /** Results longer than this are cut, keeping head and tail. @defaultValue 30000 */
  maxResultChars?: number;
  /** @defaultValue the context's logger */
  logger?: Logger;
  /** The repository's PreToolUse / PostToolUse hooks; a job's subagents pass their parent's. @defaultValue none */
  hooks?: ToolHooks;
  /** Told how each call ended (the operator's metrics); a job's subagents pass their parent's. @defaultValue none */
  observer?: ToolCallObserver;
}

/**
 * How one call ended, as the registry decided it: `ok` (a result, cached or not), `error` (the tool
 * failed or said so), `denied` (the policy, a PreToolUse hook or a maintainer refused it), `invalid`
 * (unknown tool, or input that is not valid JSON or does not fit the schema).
 */
export type ToolCallOutcome = "ok" | "error" | "denied" | "invalid";

export interface ToolCallEvent {
  /** The tool's name; null when the model named a tool that is not on offer (its text is the model's, not a name to count by). */
  tool: string | null;
  outcome: ToolCallOutcome;
  /** For `denied`: who refused it (`approval`: a maintainer said no, or the question could not be asked). */
  deniedBy?: "policy" | "hook" | "approval";
  /** The TackleError code the tool threw, for `error` (a sandbox that could not start says `sandbox_unavailable`). */
  errorCode?: string;
}

/** Watches the registry's calls without being able to change them: what it throws is ignored. */
export type ToolCallObserver = (event: ToolCallEvent) => void;

/** The runner the agent loop uses. */
export interface ToolRegistry extends ToolRunner {
  readonly tools: readonly Tool[];
  /**
   * Offers more tools from now on (a skill's own tools once it is invoked), after those offered so far,
   * so the definitions' order only grows at the end. Returns the names it added (already offered: none).
   */
  offer(tools: readonly Tool[]): string[];
  /**
   * Sets a group of tools offered after the others, in the given order, replacing the group's earlier
   * tools (the MCP gateway's activated tools, in slot order). Groups keep the order they were first set in.
   */
  setGroup(group: string, tools: readonly Tool[]): void;
  /** How many tools come before the groups and offered tools: the prefix that never changes. */
  readonly stableCount: number;
}

export const DEFAULT_MAX_RESULT_CHARS = 30_000;

/**
 * The one place where tool calls are checked and shaped: schema parsing, the reduction to a canonical
 * action (what policy, hooks and approval see), policy and approval, parallel reads, the result cache,
 * whose text each result carries (told to the policy), output caps, redaction, and errors turned into
 * is_error results. Create one registry per job: its cache and remembered approvals belong to that job.
 */
export function createToolRegistry(tools: readonly Tool[], options: ToolRegistryOptions): ToolRegistry {
  const byName = new Map<string, Tool>();
  const offered: Tool[] = [];
  let definitions: ToolDefinition[] = [];
  const signatures = new Map<string, string>();
  const definitionOf = new Map<string, ToolDefinition>();
  const groups = new Map<string, Tool[]>();
  const add = (tool: Tool): void => {
    assertDeclaresEffects(tool);
    const definition = toDefinition(tool);
    byName.set(tool.name, tool);
    offered.push(tool);
    definitions.push(definition);
    definitionOf.set(tool.name, definition);
    signatures.set(tool.name, inputSignature(definition.input_schema));
  };
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
    add(tool);
  }
  const stableCount = offered.length;
  const groupNames = (): Set<string> => new Set([...groups.values()].flat().map((tool) => tool.name));
  const rebuild = (): void => {
    const inGroups = groupNames();
    const rest = offered.filter((tool) => !inGroups.has(tool.name));
    definitions = [...rest, ...[...groups.values()].flat()].map((tool) => definitionOf.get(tool.name) as ToolDefinition);
  };
  const redact = options.redact ?? redactKnownTokens;
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const caches = new WeakMap<FsPort, Map<string, string>>();
  const gate = options.gate ?? createApprovalGate(options.approval);

  const cacheFor = (ctx: ToolContext): Map<string, string> => {
    let cache = caches.get(ctx.fs);
    if (cache === undefined) {
      cache = new Map();
      caches.set(ctx.fs, cache);
    }
    return cache;
  };

  const isParallel = (call: ToolCall): boolean => {
    const tool = byName.get(call.name);
    if (tool === undefined || call.invalidInput !== undefined) return true;
    // Only a delegating tool's judgement depends on the input.
    if (tool.effects.delegates !== true) return isReadOnly(tool.effects);
    const parsed = tool.inputSchema.safeParse(call.input ?? {});
    return !parsed.success || isReadOnlyCall(tool, parsed.data);
  };

  const finish = (call: ToolCall, content: string, isError: boolean, tool?: Tool): ToolCallResult => {
    const hint = tool?.truncationHint ?? "ask for less at a time";
    const text = cutMasked(redact(content === "" ? "(no output)" : content), maxResultChars, hint);
    return { tool_use_id: call.id, content: text, is_error: isError };
  };

  async function decide(tool: Tool, action: CanonicalAction, input: unknown, ctx: ToolContext): Promise<PolicyDecision> {
    const policy = await options.policy.check(action, ctx);
    if (policy.action !== "allow") return policy;
    return tool.checkArgs ? await tool.checkArgs(input, ctx) : policy;
  }

  /**
   * A tool that opens worktree files on the host checks a path and then opens it: the job's processes
   * (background jobs, Monitors, MCP servers) are paused meanwhile, so none can swap a symlink in between.
   * Only the call itself: the policy's check may run git in the sandbox, which waits for the pause to end.
   * What the policy reads of a file (a diff estimate) is checked again, from the host's objects, before a push.
   */
  function onHostFiles<T>(tool: Tool, ctx: ToolContext, task: () => Promise<T>): Promise<T> {
    const touchesFiles = tool.effects.reads !== undefined || tool.effects.writes !== undefined;
    // ripgrep in the sandbox is one of the job's processes: a pause would hold it too.
    if (tool.effects.reads?.bySearch === true && !ctx.search.onHost) return task();
    return touchesFiles && ctx.exec.pausing ? ctx.exec.pausing(task) : task();
  }

  /** One call, and how it ended for the observer. */
  async function runOne(call: ToolCall, ctx: ToolContext): Promise<Observed> {
    const tool = byName.get(call.name);
    if (tool === undefined) {
      return invalid(null, finish(call, `Unknown tool "${call.name}". Available tools: ${[...byName.keys()].join(", ")}.`, true));
    }
    if (call.invalidInput !== undefined) {
      return invalid(tool, finish(call, invalidInputMessage(tool.name, call.invalidInput, signatures.get(tool.name), redact), true, tool));
    }
    const parsed = tool.inputSchema.safeParse(call.input ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "input"}: ${issue.message}`);
      return invalid(tool, finish(call, `Invalid input for ${tool.name}: ${problems.join("; ")}. Expected: ${signatures.get(tool.name)}.`, true, tool));
    }
    const input: unknown = parsed.data;
    // What the call does, as the policy, the hooks and a maintainer see it (Monitor is Bash, CallMcpTool mcp__…).
    const action = canonicalAction(tool, input);
    const cache = cacheFor(ctx);
    // Anything but a read may change what a cached read would return.
    if (!isReadOnlyCall(tool, input)) cache.clear();
    // A hooked tool's every call goes through its hooks; a cached answer would skip them.
    const hooked = options.hooks?.applies(action.name) === true;
    const cacheKey = tool.cacheable === true && !hooked ? `${tool.name}:${stableStringify(input)}` : undefined;
    const cached = cacheKey === undefined ? undefined : cache.get(cacheKey);
    if (cached !== undefined) return { result: { tool_use_id: call.id, content: cached, is_error: false }, event: { tool: tool.name, outcome: "ok" } };

    let decision: PolicyDecision;
    try {
      decision = await decide(tool, action, input, ctx);
    } catch (error) {
      return failed(tool, finish(call, `The policy check for ${tool.name} failed, so the call was not run: ${errorMessage(error)}`, true, tool));
    }
    if (decision.action === "deny") return denied(tool, "policy", finish(call, `Denied: ${decision.reason}`, true, tool));
    const hooks = hooked ? options.hooks : undefined;
    const before = hooks === undefined ? [] : await beforeCall(hooks, call, tool, action, ctx);
    if (!Array.isArray(before)) return before;
    if (decision.action === "ask") {
      let answer: ApprovalAnswer;
      try {
        const question = { tool: action.name, input: action.input, reason: decision.reason, ...(ctx.callPath === undefined ? {} : { call: ctx.callPath }) };
        answer = await gate.ask(question, decision.approvalKey, ctx.signal);
      } catch (error) {
        return denied(
          tool,
          "approval",
          finish(call, `${tool.name} needs approval (${decision.reason}), but asking failed: ${errorMessage(error)}`, true, tool),
        );
      }
      if (!answer.approved) {
        const by = answer.by === undefined ? "" : ` by @${answer.by}`;
        const message = answer.message ?? `${tool.name} needs a maintainer's approval (${decision.reason}) and was denied${by}; choose another approach.`;
        return denied(tool, "approval", finish(call, `Not approved: ${message}`, true, tool));
      }
    }

    const ran = await execute(call, tool, input, ctx);
    const final = ran.result;
    if (cacheKey !== undefined && !final.is_error) cache.set(cacheKey, final.content);
    if (hooks === undefined || ctx.signal.aborted) return ran;
    const after = await afterCall(hooks, call, tool, action, final, before, ctx);
    return { result: after, event: { ...ran.event, outcome: after.is_error ? "error" : "ok" } };
  }

  async function execute(call: ToolCall, tool: Tool, input: unknown, ctx: ToolContext): Promise<Observed> {
    try {
      const result = await onHostFiles(tool, ctx, () => tool.execute(input, withDeclaredCommands(tool, ctx)));
      // Whose text reached the job, noted once here for every tool: what a memory write is then asked for.
      options.policy.noteOutsideText(outsideSourcesOf(tool, result, ctx));
      const final = finish(call, result.content, result.isError === true, tool);
      return { result: final, event: { tool: tool.name, outcome: final.is_error ? "error" : "ok" } };
    } catch (error) {
      if (ctx.signal.aborted) return failed(tool, finish(call, `${tool.name} was stopped: the job was cancelled.`, true, tool));
      const message = isTackleError(error) ? error.message : `tool ${tool.name} failed: ${errorMessage(error)}`;
      return failed(tool, finish(call, message, true, tool), isTackleError(error) ? error.code : undefined);
    }
  }

  /** PreToolUse: the call's ending when a hook denies it (or the job stops), else notes on hooks that failed. */
  async function beforeCall(hooks: ToolHooks, call: ToolCall, tool: Tool, action: CanonicalAction, ctx: ToolContext): Promise<Observed | string[]> {
    try {
      const pre = await hooks.preToolUse(action, ctx).finally(() => options.policy.noteOutsideText(hookSources(ctx)));
      return pre.denied === undefined ? pre.notes : denied(tool, "hook", finish(call, `Denied by a PreToolUse hook: ${pre.denied}`, true, tool));
    } catch (error) {
      return failed(tool, finish(call, `${tool.name} was not run: ${ctx.signal.aborted ? "the job was cancelled" : errorMessage(error)}`, true, tool));
    }
  }

  /** PostToolUse: the result, with what blocking hooks said and notes on hooks that failed after it. */
  async function afterCall(
    hooks: ToolHooks,
    call: ToolCall,
    tool: Tool,
    action: CanonicalAction,
    final: ToolCallResult,
    notes: readonly string[],
    ctx: ToolContext,
  ): Promise<ToolCallResult> {
    let added: string[];
    try {
      added = await hooks.postToolUse(action, final.content, ctx).finally(() => options.policy.noteOutsideText(hookSources(ctx)));
    } catch (error) {
      if (ctx.signal.aborted) return finish(call, `${tool.name} was stopped: the job was cancelled.`, true, tool);
      added = [`[PostToolUse hooks failed: ${errorMessage(error)}]`];
    }
    const extra = [...notes, ...added];
    return extra.length === 0 ? final : finish(call, [final.content, ...extra].join("\n"), final.is_error, tool);
  }

  async function runLogged(call: ToolCall, ctx: ToolContext): Promise<ToolCallResult> {
    const logger = options.logger ?? ctx.logger;
    const started = performance.now();
    const { result, event } = await runOne(call, ctx);
    try {
      options.observer?.(event);
    } catch (error) {
      logger.warn({ err: error, tool: call.name }, "the tool call observer failed");
    }
    logger.debug(
      { tool: call.name, toolUseId: call.id, isError: result.is_error, chars: result.content.length, ms: Math.round(performance.now() - started) },
      "tool call",
    );
    return result;
  }

  return {
    get tools() {
      return offered;
    },
    offer(more) {
      const added: string[] = [];
      for (const tool of more) {
        if (byName.has(tool.name)) continue;
        add(tool);
        added.push(tool.name);
      }
      rebuild();
      return added;
    },
    setGroup(group, groupTools) {
      for (const tool of groups.get(group) ?? []) {
        byName.delete(tool.name);
        offered.splice(offered.indexOf(tool), 1);
      }
      for (const tool of groupTools) {
        if (byName.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
        add(tool);
      }
      groups.set(group, [...groupTools]);
      rebuild();
    },
    stableCount,
    // Built once: each call gets fresh top-level objects to decorate (cache_control); the shared schemas are frozen.
    definitions: () => definitions.map((definition) => ({ ...definition })),
    async runCalls(calls, turnCtx) {
      const prefix = turnCtx.callPath;
      const ctxFor = (index: number): ToolContext => (prefix === undefined ? turnCtx : { ...turnCtx, callPath: `${prefix}/${index + 1}` });
      const ctx = turnCtx;
      const results: ToolCallResult[] = [];
      let next = 0;
      while (next < calls.length) {
        if (ctx.signal.aborted) {
          for (const call of calls.slice(next)) results.push(finish(call, "Not run: the job was cancelled.", true));
          break;
        }
        // Consecutive reads run together; anything else runs alone, in order.
        let end = next + 1;
        if (isParallel(calls[next] as ToolCall)) {
          while (end < calls.length && isParallel(calls[end] as ToolCall)) end += 1;
        }
        const batch = await Promise.all(calls.slice(next, end).map((call, offset) => runLogged(call, ctxFor(next + offset))));
        results.push(...batch);
        next = end;
      }
      return results;
    },
  };
}

/** A call's result and how it ended, for the observer. */
interface Observed {
  result: ToolCallResult;
  event: ToolCallEvent;
}

const invalid = (tool: Tool | null, result: ToolCallResult): Observed => ({ result, event: { tool: tool?.name ?? null, outcome: "invalid" } });

const denied = (tool: Tool, by: NonNullable<ToolCallEvent["deniedBy"]>, result: ToolCallResult): Observed => ({
  result,
  event: { tool: tool.name, outcome: "denied", deniedBy: by },
});

const failed = (tool: Tool, result: ToolCallResult, errorCode?: string): Observed => ({
  result,
  event: { tool: tool.name, outcome: "error", ...(errorCode === undefined ? {} : { errorCode }) },
});

function toDefinition(tool: Tool): ToolDefinition {
  const schema = structuredClone(tool.jsonSchema) ?? (z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>);
  delete schema.$schema;
  if (schema.type !== "object") throw new Error(`tool ${tool.name}: the input schema must be an object`);
  const inputSchema = deepFreeze(stripSafeIntegerBounds(schema)) as ToolDefinition["input_schema"];
  return { name: tool.name, description: tool.description, input_schema: inputSchema };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** `z.number().int()` adds ±2^53 bounds that only cost tokens. */
function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if ((key === "maximum" || key === "minimum") && Math.abs(item as number) === Number.MAX_SAFE_INTEGER) continue;
    out[key] = stripSafeIntegerBounds(item);
  }
  return out;
}

/** "file_path (string), offset? (integer)" — said to the model after a malformed call. */
function inputSignature(inputSchema: ToolDefinition["input_schema"]): string {
  const schema = inputSchema as {
    properties?: Record<string, { type?: string; enum?: unknown[] }>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = property.enum ? property.enum.map((value) => JSON.stringify(value)).join(" | ") : (property.type ?? "value");
    return `${name}${required.has(name) ? "" : "?"} (${type})`;
  });
  return fields.length > 0 ? `{ ${fields.join(", ")} }` : "no input ({})";
}

const EXCERPT_HEAD_CHARS = 200;
const EXCERPT_TAIL_CHARS = 100;

/**
 * Said to the model when its input was not valid JSON, with a short excerpt of what it sent (redacted
 * before it is cut, so a secret cut in two is still caught).
 */
function invalidInputMessage(toolName: string, invalid: InvalidToolInput, signature: string | undefined, redact: Redactor): string {
  const raw = redact(invalid.raw);
  const excerpt =
    raw.length <= EXCERPT_HEAD_CHARS + EXCERPT_TAIL_CHARS
      ? raw
      : `${raw.slice(0, EXCERPT_HEAD_CHARS)} […${raw.length - EXCERPT_HEAD_CHARS - EXCERPT_TAIL_CHARS} characters…] ${raw.slice(-EXCERPT_TAIL_CHARS)}`;
  return [
    `Not run: your input for ${toolName} was not valid JSON (${invalid.error}).`,
    `You sent: ${excerpt}`,
    `Call ${toolName} again with one valid JSON object${signature === undefined ? "" : `: ${signature}`}. Inside strings, escape double quotes as \\" and newlines as \\n.`,
  ].join("\n");
}

/** JSON with sorted keys, so equal inputs make equal cache keys. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
