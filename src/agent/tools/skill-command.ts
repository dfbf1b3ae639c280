import { z } from "zod";
import { skillToolName } from "../../config/parse-skill-definition.js";
import type { SkillToolDefinition } from "../../config/repo-extensions.js";
import { TackleError } from "../../errors/index.js";
import { BASH_DEFAULT_TIMEOUT_MS, describeCommandResult } from "./bash.js";
import { defineTool, type Tool } from "./tool.js";

/**
 * A tool a skill declares: the repository's command (from the default branch's commit, read-only)
 * run in the sandbox like Bash, with the model's input as JSON on stdin.
 */
export function createSkillCommandTool(skill: string, definition: SkillToolDefinition): Tool {
  // The command line as it runs, declared as the tool's effect: the policy and hooks see this same text.
  const command = shellQuote(definition.command);
  return defineTool({
    name: skillToolName(skill, definition.name),
    description: `${definition.description}\n(From the skill "${skill}": runs its command in the sandbox with your input as JSON on stdin.)`,
    inputSchema: z.record(z.string(), z.unknown()),
    jsonSchema: definition.inputSchema,
    effects: { runsSkillCommand: { command } },
    truncationHint: "ask the command for less output",
    async execute(input, ctx) {
      const result = await ctx.exec.run(command, {
        timeoutMs: BASH_DEFAULT_TIMEOUT_MS,
        signal: ctx.signal,
        input: JSON.stringify(input),
      });
      if (ctx.signal.aborted) throw new TackleError("aborted", "the command was stopped: the job was cancelled");
      return { content: describeCommandResult(result, BASH_DEFAULT_TIMEOUT_MS), ...(result.exitCode === 0 ? {} : { isError: true }) };
    },
  });
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
