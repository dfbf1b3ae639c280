import { z } from "zod";
import { defineTool } from "./tool.js";

const inputSchema = z.object({
  summary: z.string().trim().min(1).max(10_000).describe("What you did and what is left, for the maintainers (Markdown)."),
  files_changed: z.array(z.string()).optional().describe("The files you changed, relative to the repository root."),
});

export const taskDoneTool = defineTool({
  name: "task_done",
  description: [
    "Ends the run. Call it once the work is committed and published with create_pull_request, or when you cannot go on",
    "(say why in the summary). Uncommitted changes and a missing PR are handled by the host, but prefer to do both yourself.",
  ].join("\n"),
  inputSchema,
  effects: { session: true },
  async execute(input, ctx) {
    ctx.state.done = { summary: input.summary, filesChanged: input.files_changed ?? [] };
    return { content: "Marked done; the run ends after this turn." };
  },
});
