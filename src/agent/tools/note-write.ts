import { z } from "zod";
import { defineTool } from "./tool.js";

export const NOTE_MAX_COUNT = 30;
export const NOTE_MAX_CHARS = 1000;

const inputSchema = z.object({
  notes: z
    .array(z.string().min(1).max(NOTE_MAX_CHARS))
    .max(NOTE_MAX_COUNT)
    .describe(`All your notes (at most ${NOTE_MAX_COUNT}, each at most ${NOTE_MAX_CHARS} characters); they replace the previous ones.`),
});

export const noteWriteTool = defineTool({
  name: "NoteWrite",
  description: [
    "Replaces your working notes: facts worth keeping for the rest of the session (commands that build and test the repo,",
    "decisions, findings). Notes survive when older turns are summarised; send the full list each time.",
  ].join("\n"),
  inputSchema,
  effects: { session: true },
  async execute(input, ctx) {
    ctx.state.notes = [...input.notes];
    return { content: input.notes.length === 0 ? "Notes cleared." : `Notes saved (${input.notes.length}).` };
  },
});
