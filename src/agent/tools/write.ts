import { stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "./tool.js";
import { countChar, plural } from "./format-lines.js";

const inputSchema = z.object({
  file_path: z.string().min(1).describe("The file to write: relative to the repository root, or absolute inside it."),
  content: z.string().describe("The complete new content of the file."),
});

export const writeTool = defineTool({
  name: "Write",
  description: [
    "Writes a file, replacing it whole if it exists; missing parent directories are created.",
    "Prefer Edit for changes to an existing file: it sends only the part that changes.",
  ].join("\n"),
  inputSchema,
  effects: { writes: { path: "file_path", preview: (input) => input.content } },
  async execute(input, ctx) {
    const absolute = await ctx.fs.resolve(input.file_path, "write");
    const shown = ctx.fs.relative(absolute);
    const existing = await stat(absolute).catch(() => undefined);
    if (existing?.isDirectory()) {
      return { content: `${shown} is a directory; give the path of a file inside it.`, isError: true };
    }
    await ctx.fs.writeFile(absolute, input.content);
    const bytes = Buffer.byteLength(input.content, "utf8");
    const lines = countLines(input.content);
    return { content: `${existing ? "Overwrote" : "Created"} ${shown}: ${plural(bytes, "byte")}, ${plural(lines, "line")}.` };
  },
});

function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = countChar(text, "\n");
  return text.endsWith("\n") ? newlines : newlines + 1;
}
