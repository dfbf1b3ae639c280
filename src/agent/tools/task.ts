import { z } from "zod";
import { defineTool, type Tool } from "./tool.js";

/** Turns a call may give a subagent. */
const MAX_TURNS = 100;

const inputSchema = z.object({
  description: z.string().trim().min(1).max(120).describe("A few words on the subtask, shown to the maintainers."),
  prompt: z
    .string()
    .trim()
    .min(1)
    .describe("The whole subtask: what to find or do, and what to report back. The subagent sees nothing else of your conversation."),
  subagent_type: z.string().trim().min(1).optional().describe("The kind of subagent (listed above). Defaults to general-purpose."),
  max_turns: z.number().int().min(1).max(MAX_TURNS).optional().describe("Most model turns it may take; its type may allow fewer."),
});

export interface TaskToolType {
  name: string;
  description: string;
  readOnly: boolean;
}

/** Task, listing the job's subagent types (built-in first, then the repository's, by name) in its description. */
export function createTaskTool(types: readonly TaskToolType[]): Tool {
  const readOnly = new Set(types.filter((type) => type.readOnly).map((type) => type.name));
  return defineTool({
    name: "Task",
    description: [
      "Starts a subagent with a fresh conversation on a self-contained subtask and returns its final report. Use it to",
      "search widely or to work on a separable part without filling your own context; it shares your workspace and budget.",
      "Read-only subagents started in one reply run in parallel. Types:",
      ...types.map((type) => `- ${type.name}: ${type.description}`),
    ].join("\n"),
    inputSchema,
    effects: { delegates: true },
    readOnlyCall: (input) => readOnly.has(input.subagent_type ?? "general-purpose"),
    async execute(input, ctx) {
      if (ctx.subagents === undefined) return { content: "Subagents are not available here; do the work yourself.", isError: true };
      return ctx.subagents.run(
        {
          type: input.subagent_type ?? "general-purpose",
          description: input.description,
          prompt: input.prompt,
          ...(input.max_turns === undefined ? {} : { maxTurns: input.max_turns }),
        },
        ctx,
      );
    },
  });
}
