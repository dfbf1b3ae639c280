import { z } from "zod";
import { defineTool } from "./tool.js";

const inputSchema = z.object({
  name: z.string().trim().min(1).describe("Lowercase letters, digits and dashes, at most 64: e.g. build-needs-codegen."),
  description: z.string().trim().min(1).optional().describe("One line saying what it holds; later jobs see it in the index. Not needed to delete."),
  content: z.string().describe("The memory itself, at most 4 KB. Empty deletes the memory."),
});

export const memoryWriteTool = defineTool({
  name: "MemoryWrite",
  description:
    "Keeps a note for later jobs on this repository (replacing one of the same name): facts you had to discover that the code does not say, such as how to run its tests. Not for this task's progress (use NoteWrite).",
  inputSchema,
  effects: { memory: "write" },
  async execute(input, ctx) {
    if (ctx.memory === undefined) return { content: "Memory is off for this repository.", isError: true };
    if (input.content.trim() !== "" && input.description === undefined) {
      return { content: "MemoryWrite needs a description (one line saying what the memory holds) to save it.", isError: true };
    }
    const outcome = await ctx.memory.write({ name: input.name, description: input.description ?? "", content: input.content });
    const said = { created: "Saved", updated: "Updated", deleted: "Deleted", absent: "There was no memory named" }[outcome];
    return { content: `${said} "${input.name}".` };
  },
});
