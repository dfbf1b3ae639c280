import { compileHookMatcher, HOOK_MATCHED_NAME_CHARS } from "../../config/compile-hook-matcher.js";
import type { HookConfig } from "../../config/repo-config.js";
import { errorMessage } from "../../errors/index.js";
import type { ExecResult } from "../ports.js";
import { offeredToolName, type CanonicalAction } from "./canonical-action.js";
import type { ToolContext } from "./tool.js";

/** How long one hook may run. */
export const HOOK_TIMEOUT_MS = 60_000;
/** stderr kept from one hook; a reason longer than this is cut by the exec port. */
const HOOK_OUTPUT_BYTES = 64 * 1024;
/** Claude Code's exit code for "block this call" (PreToolUse) or "tell the model" (PostToolUse). */
const BLOCKING_EXIT = 2;

/**
 * The exec port gives stdout and stderr interleaved; a hook's reason is its stderr alone. The hook's
 * own command comes in through the environment, so no quoting of the repository's text can break
 * this wrapper: stderr is sent to where stdout went, stdout is dropped, and bash's exit status is the hook's.
 */
const WRAPPER = 'bash -c "$TACKLE_HOOK_COMMAND" 2>&1 >/dev/null';

export interface ToolHooksConfig {
  PreToolUse: readonly HookConfig[];
  PostToolUse: readonly HookConfig[];
  /**
   * The default branch's `.tackle/hooks`, extracted by the host and bound read-only; hooks find their
   * scripts there through `$TACKLE_HOOKS_DIR`, never through the checkout the agent can rewrite.
   * @defaultValue unset (the repository's default branch has no `.tackle/hooks`)
   */
  hooksDir?: string;
  /** Told the tool's name each time a PreToolUse hook denies a call (the tracking comment counts them). */
  onDenied?: (toolName: string) => void;
}

/** What the PreToolUse hooks decided: a denial's reason, and notes on hooks that failed. */
export interface PreToolUseOutcome {
  denied?: string;
  notes: string[];
}

/**
 * The repository's hooks around each tool call, as the tool registry runs them. They see a call as its
 * canonical action: matchers match its name (`Bash` for Monitor and a skill's tool, `mcp__<server>__<tool>`
 * for CallMcpTool), and stdin carries its name and input as `tool_name` and `tool_input`, with the call
 * as the model made it in `original_tool_name` and `original_tool_input` when that differs.
 */
export interface ToolHooks {
  /** Whether a hook applies to this action: its calls then bypass the result cache, so every call is seen. */
  applies(actionName: string): boolean;
  preToolUse(action: CanonicalAction, ctx: ToolContext): Promise<PreToolUseOutcome>;
  /** Text to append to the result: blocking hooks' stderr and notes on hooks that failed. */
  postToolUse(action: CanonicalAction, response: string, ctx: ToolContext): Promise<string[]>;
}

interface CompiledHook {
  regex: RegExp;
  command: string;
}

/** Hooks from the repo config; a matcher that does not compile was a config problem, so none is left here. */
export function createToolHooks(config: ToolHooksConfig): ToolHooks {
  const pre = compileAll(config.PreToolUse);
  const post = compileAll(config.PostToolUse);
  // The one place a matcher runs: never on a name too long to test quickly.
  // The canonical name and the one the tool is offered under (they differ for an MCP tool with odd characters or a long name).
  const matching = (hooks: readonly CompiledHook[], toolName: string) => {
    if (toolName.length > HOOK_MATCHED_NAME_CHARS) return [];
    const names = [toolName, offeredToolName(toolName)];
    return hooks.filter((hook) => names.some((name) => hook.regex.test(name)));
  };
  const env = config.hooksDir === undefined ? {} : { TACKLE_HOOKS_DIR: config.hooksDir };
  const tooLong = (toolName: string) => toolName.length > HOOK_MATCHED_NAME_CHARS && pre.length > 0;

  return {
    applies: (toolName) => tooLong(toolName) || matching(pre, toolName).length > 0 || matching(post, toolName).length > 0,

    async preToolUse(action, ctx) {
      const notes: string[] = [];
      // Whether a hook would deny it cannot be known without matching it: fail closed.
      if (tooLong(action.name)) {
        config.onDenied?.(action.original?.name ?? action.name);
        return { denied: `the tool name is ${action.name.length} characters, longer than the ${HOOK_MATCHED_NAME_CHARS} characters hooks match`, notes };
      }
      // In order; the first denial ends it, so a later hook never sees a call that will not run.
      for (const hook of matching(pre, action.name)) {
        const payload = { hook_event_name: "PreToolUse", ...describe(action) };
        const ran = await runHook(hook, payload, env, ctx);
        if (ran.exitCode === BLOCKING_EXIT) {
          const called = action.original?.name ?? action.name;
          config.onDenied?.(called);
          ctx.logger.info({ tool: called, action: action.name, hook: hook.command }, "a PreToolUse hook denied the call");
          return { denied: ran.stderr === "" ? "(the hook gave no reason)" : ran.stderr, notes };
        }
        const note = failureNote("PreToolUse", hook, ran, ctx);
        if (note !== undefined) notes.push(note);
      }
      return { notes };
    },

    async postToolUse(action, response, ctx) {
      const added: string[] = [];
      for (const hook of matching(post, action.name)) {
        const payload = { hook_event_name: "PostToolUse", ...describe(action), tool_response: response };
        const ran = await runHook(hook, payload, env, ctx);
        if (ran.exitCode === BLOCKING_EXIT) {
          added.push(`[PostToolUse hook] ${ran.stderr === "" ? "(the hook gave no reason)" : ran.stderr}`);
          continue;
        }
        const note = failureNote("PostToolUse", hook, ran, ctx);
        if (note !== undefined) added.push(note);
      }
      return added;
    },
  };
}

/** The action's fields of a hook's stdin. */
function describe(action: CanonicalAction): Record<string, unknown> {
  const original = action.original === undefined ? {} : { original_tool_name: action.original.name, original_tool_input: action.original.input };
  return { tool_name: action.name, tool_input: action.input, ...original };
}

function compileAll(hooks: readonly HookConfig[]): CompiledHook[] {
  return hooks.map((hook) => {
    const compiled = compileHookMatcher(hook.matcher);
    if (!compiled.ok) throw new Error(`hook matcher ${JSON.stringify(hook.matcher)}: ${compiled.problem}`);
    return { regex: compiled.regex, command: hook.command };
  });
}

interface HookRun {
  /** null: killed (timeout, signal) or not started. */
  exitCode: number | null;
  stderr: string;
  /** Why it did not run to an exit, when it did not. */
  failure?: string;
}

async function runHook(hook: CompiledHook, payload: object, env: Record<string, string>, ctx: ToolContext): Promise<HookRun> {
  let result: ExecResult;
  try {
    result = await ctx.exec.run(WRAPPER, {
      timeoutMs: HOOK_TIMEOUT_MS,
      signal: ctx.signal,
      input: JSON.stringify(payload),
      maxOutputBytes: HOOK_OUTPUT_BYTES,
      env: { ...env, TACKLE_HOOK_COMMAND: hook.command },
    });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return { exitCode: null, stderr: "", failure: `could not run: ${errorMessage(error)}` };
  }
  const stderr = result.output.trim();
  if (result.timedOut) return { exitCode: null, stderr, failure: `timed out after ${HOOK_TIMEOUT_MS / 1000} s` };
  if (result.exitCode === null) return { exitCode: null, stderr, failure: "was killed" };
  return { exitCode: result.exitCode, stderr };
}

/** A hook that failed other than by exit 2 does not decide anything; the model and the log are told. */
function failureNote(event: string, hook: CompiledHook, ran: HookRun, ctx: ToolContext): string | undefined {
  if (ran.exitCode === 0) return undefined;
  const how = ran.failure ?? `exited ${ran.exitCode}`;
  ctx.logger.warn({ hook: hook.command, event, exitCode: ran.exitCode, stderr: ran.stderr.slice(0, 2000) }, `a ${event} hook ${how}`);
  return `[${event} hook \`${oneLine(hook.command)}\` ${how}${ran.stderr === "" ? "" : `: ${ran.stderr}`}]`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
