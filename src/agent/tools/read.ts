import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineTool } from "./tool.js";
import { formatLine } from "./format-lines.js";

/** @defaultValue lines returned when `limit` is not given */
export const READ_DEFAULT_LIMIT = 1000;
const BINARY_SNIFF_BYTES = 8192;

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
    const absolute = await ctx.fs.resolve(input.file_path, "read");
    const shown = ctx.fs.relative(absolute);
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined) return { content: `${shown} does not exist; use Glob to find files.`, isError: true };
    if (info.isDirectory()) {
      return { content: `${shown} is a directory; use Glob (e.g. pattern "${shown}/*") to list its files.`, isError: true };
    }
    if (!info.isFile()) return { content: `${shown} is not a regular file.`, isError: true };
    if (info.size === 0) return { content: `${shown} is empty (0 bytes).` };
    if (await looksBinary(absolute)) {
      return { content: `${shown} is a binary file, ${info.size} bytes; Read shows text files only.`, isError: true };
    }

    const offset = input.offset ?? 1;
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const { lines, total } = await readLines(absolute, offset, limit, ctx.signal);
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

async function looksBinary(absolute: string): Promise<boolean> {
  const handle = await open(absolute, "r");
  try {
    const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

/** Streams the file: keeps lines [offset, offset+limit) and counts the rest, so huge files stay cheap in memory. */
async function readLines(absolute: string, offset: number, limit: number, signal: AbortSignal): Promise<{ lines: string[]; total: number }> {
  const stream = createReadStream(absolute, { encoding: "utf8", signal });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  let total = 0;
  try {
    for await (const line of reader) {
      total += 1;
      if (total >= offset && lines.length < limit) lines.push(line);
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  return { lines, total };
}
