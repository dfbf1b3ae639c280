import { z } from "zod";
import { defineTool } from "./tool.js";
import { formatLine, linesBetween } from "./format-lines.js";

/** @defaultValue lines returned when `limit` is not given */
export const READ_DEFAULT_LIMIT = 1000;
const BINARY_SNIFF_BYTES = 8192;
/** The largest file Read takes whole; a longer log is for Bash's sed and head. */
export const READ_MAX_BYTES = 32 * 1024 * 1024;

const inputSchema = z.object({
  file_path: z.string().min(1).describe("The file to read: relative to the repository root, or absolute inside it."),
  offset: z.number().int().min(1).optional().describe("1-based line number to start at. Use it for files too long to read at once."),
  limit: z.number().int().min(1).optional().describe(`How many lines to read. Defaults to ${READ_DEFAULT_LIMIT}.`),
});

export const readTool = defineTool({
  name: "Read",
  description: [
    "Reads a text file from the repository and returns its lines numbered like `cat -n` (number, tab, line).",
    `Returns up to ${READ_DEFAULT_LIMIT} lines from the start by default; use offset and limit for the rest of long files.`,
    "Lines longer than 2000 characters are cut. Directories and binary files are refused: list directories with Glob.",
    "Read several files in one turn when you need them: reads run in parallel.",
  ].join("\n"),
  inputSchema,
  effects: { reads: { path: "file_path" } },
  cacheable: true,
  truncationHint: "use Read with offset and limit to see the omitted lines",
  async execute(input, ctx) {
    const file = await ctx.fs.read(input.file_path, { maxBytes: READ_MAX_BYTES, signal: ctx.signal });
    const shown = ctx.fs.relative(file.path);
    if (file.kind === "too_large") {
      return {
        content: `${shown} is over ${READ_MAX_BYTES / 1024 / 1024} MiB, more than Read takes; use Bash (sed -n, head, grep) for parts of it.`,
        isError: true,
      };
    }
    if (file.kind === "missing") return { content: `${shown} does not exist; use Glob to find files.`, isError: true };
    if (file.kind === "directory") {
      return { content: `${shown} is a directory; use Glob (e.g. pattern "${shown}/*") to list its files.`, isError: true };
    }
    const { bytes } = file;
    if (bytes.length === 0) return { content: `${shown} is empty (0 bytes).` };
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      return { content: `${shown} is a binary file, ${bytes.length} bytes; Read shows text files only.`, isError: true };
    }

    const offset = input.offset ?? 1;
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const { lines, total } = linesBetween(bytes.toString("utf8"), offset, offset - 1 + limit, true);
    if (lines.length === 0) {
      return {
        content: `offset ${offset} is past the end of ${shown}, which has ${total} line${total === 1 ? "" : "s"}.`,
        isError: true,
      };
    }
    const body = lines.map((line, index) => formatLine(offset + index, line)).join("\n");
    const last = offset + lines.length - 1;
    if (last >= total) return { content: body };
    return {
      content: `${body}\n\n(${shown} has ${total} lines; this shows lines ${offset}-${last}. To read more, use offset=${last + 1}.)`,
    };
  },
});
