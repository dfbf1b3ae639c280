import type { Tool, ToolContext, ToolEffects, ToolResult } from "./tool.js";

/** Named for a command's output when commands reach the network because nothing sandboxes them. */
export const UNSANDBOXED_COMMANDS = "commands run without the sandbox, with the host's network";

/**
 * Whose text one result carries, beyond the repository and its maintainers: the job's taint is this,
 * by source, never by tool name. The tool's own `outsideSources` when it says; a tool whose effects
 * bring in outside text (a web page, an MCP server, the issue thread) and says nothing counts as an
 * outside source itself (fail closed); a command's output is the repository's own in the sandbox
 * (no network: it can only read what the job already had), and outside text without it.
 */
export function outsideSourcesOf(tool: Pick<Tool, "name" | "effects">, result: ToolResult, ctx: Pick<ToolContext, "exec">): readonly string[] {
  if (result.outsideSources !== undefined) return result.outsideSources;
  if (readsOutsideText(tool.effects)) return [`${tool.name} (its result named no source)`];
  if (runsCommands(tool.effects) && !ctx.exec.sandboxed) return [UNSANDBOXED_COMMANDS];
  return [];
}

function readsOutsideText(effects: ToolEffects): boolean {
  return effects.fetches !== undefined || effects.callsMcp !== undefined || effects.issue === "read";
}

function runsCommands(effects: ToolEffects): boolean {
  return effects.runs !== undefined || effects.runsSkillCommand !== undefined || effects.background === "read";
}

/**
 * Whose text a repository hook that ran around a call may have brought in: its stderr reaches the model,
 * and it may write files the agent reads back. In the sandbox it is the repository's own; without it the
 * hook is a command with the host's network, so outside text, as a command's output is.
 */
export function hookSources(ctx: Pick<ToolContext, "exec">): readonly string[] {
  return ctx.exec.sandboxed ? [] : [UNSANDBOXED_COMMANDS];
}
