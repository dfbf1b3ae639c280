import type { Tool, ToolEffects } from "./tool.js";

/** The shell tool every command-running call is reduced to. */
export const SHELL_ACTION = "Bash";

declare const canonicalBrand: unique symbol;

/**
 * What a call does, whatever tool it came through: the only input the policy engine and the hooks
 * take. Only `canonicalAction` makes one, so a new path to the policy or the hooks that forgets the
 * reduction does not compile.
 */
export interface CanonicalAction {
  /** `Bash` for any command, `mcp__<server>__<tool>` for any MCP call, else the tool's own name. */
  readonly name: string;
  /** The input as that action takes it: `{command, …}` for Bash, the MCP tool's arguments for MCP. */
  readonly input: unknown;
  /** What the action touches: the policy's rules are chosen from these. */
  readonly effects: ToolEffects;
  /** The call as the model made it, when it is not the action itself (Monitor, CallMcpTool, a skill's tool). */
  readonly original?: { readonly name: string; readonly input: unknown };
  readonly [canonicalBrand]: true;
}

const SHELL_EFFECTS: ToolEffects = { runs: { command: "command" } };

/** The longest tool name the model API takes. */
const MAX_OFFERED_NAME_CHARS = 64;

/**
 * A name as the model API takes it (letters, digits, `_` and `-`; at most 64): what an MCP tool is offered
 * and shown under (`mcp__docs__search_v2` for `search.v2`). Hooks match it besides the canonical name, so a
 * matcher written for the name the model sees holds for the raw one.
 */
export function offeredToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_OFFERED_NAME_CHARS);
}

/**
 * Reduces one schema-parsed call to what it does, from the tool's declared effects (never its name):
 * a tool that runs a shell command is `Bash` with that command (`run_in_background: true` when it keeps
 * running, as Monitor does; a skill's tool: the skill's command line); a tool that calls an MCP tool
 * is `mcp__<server>__<tool>` with the arguments. So a deny rule or hook written for one alias holds for
 * every other way to the same action.
 */
export function canonicalAction(tool: Pick<Tool, "name" | "effects">, input: unknown): CanonicalAction {
  const reduced = reduce(tool, input);
  if (reduced === undefined) return brand({ name: tool.name, input, effects: tool.effects });
  return brand({ ...reduced, original: { name: tool.name, input } });
}

function reduce(tool: Pick<Tool, "name" | "effects">, input: unknown): Omit<CanonicalAction, typeof canonicalBrand | "original"> | undefined {
  const { effects } = tool;
  if (effects.runsSkillCommand !== undefined) return shell({ command: effects.runsSkillCommand.command });
  if (effects.runs !== undefined) {
    if (tool.name === SHELL_ACTION && effects.runs.command === "command") return undefined;
    const command = field(input, effects.runs.command);
    return shell({ command: typeof command === "string" ? command : "", ...(effects.runs.inBackground ? { run_in_background: true } : {}) });
  }
  if (effects.callsMcp !== undefined) {
    const mcp = effects.callsMcp;
    const qualified = "qualified" in mcp ? mcp.qualified : field(input, mcp.tool);
    const args = "qualified" in mcp ? input : (field(input, mcp.arguments) ?? {});
    const name = `mcp__${typeof qualified === "string" ? qualified : ""}`;
    return { name, input: args, effects: { callsMcp: { qualified: typeof qualified === "string" ? qualified : "" } } };
  }
  return undefined;
}

function shell(input: { command: string; run_in_background?: true }) {
  return { name: SHELL_ACTION, input, effects: SHELL_EFFECTS };
}

function brand(action: Omit<CanonicalAction, typeof canonicalBrand>): CanonicalAction {
  return action as CanonicalAction;
}

function field(input: unknown, key: string): unknown {
  return input !== null && typeof input === "object" ? (input as Record<string, unknown>)[key] : undefined;
}
