import { z } from "zod";
import { defineTool } from "./tool.js";
import { plural } from "./format-lines.js";

/** ripgrep output kept before head_limit and the registry's cap apply. */
const MAX_RIPGREP_BYTES = 2_000_000;

const inputSchema = z.object({
  pattern: z.string().min(1).describe("Regular expression (ripgrep/Rust syntax) to search file contents for."),
  path: z.string().optional().describe("File or directory to search, relative to the repository root. Defaults to the root."),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .optional()
    .describe('"files_with_matches" (default) lists matching files; "content" shows matching lines with line numbers; "count" gives matches per file.'),
  case_insensitive: z.boolean().optional().describe("Match case-insensitively (rg -i)."),
  context: z.number().int().min(0).max(50).optional().describe('Lines of context around each match (rg -C), in "content" mode.'),
  head_limit: z.number().int().min(1).optional().describe("Keep only the first N lines or files of the output."),
});

export const grepTool = defineTool({
  name: "Grep",
  description: [
    "Searches file contents with ripgrep. Respects .gitignore, includes hidden files, never searches .git.",
    'output_mode "files_with_matches" (default, newest first), "content" (path:line:text, with context lines as path-line-text), or "count".',
    "Narrow with path and glob; use head_limit to keep the output short. Prefer this to running grep or rg in Bash.",
  ].join("\n"),
  inputSchema,
  effects: { reads: { path: "path", bySearch: true } },
  cacheable: true,
  truncationHint: "use a narrower pattern, path or glob, or head_limit",
  async execute(input, ctx) {
    const mode = input.output_mode ?? "files_with_matches";
    const args = ["--hidden", "--glob", "!.git", "--color", "never", "--max-columns", "500", "--max-columns-preview"];
    if (mode === "files_with_matches") args.push("--files-with-matches", "--sortr", "modified");
    else if (mode === "count") args.push("--count", "--with-filename");
    else args.push("--line-number", "--with-filename", "--no-heading");
    if (mode === "content" && input.context !== undefined) args.push("--context", String(input.context));
    if (input.case_insensitive === true) args.push("--ignore-case");
    if (input.glob !== undefined) args.push("--glob", input.glob);
    args.push("--regexp", input.pattern);
    if (input.path !== undefined) {
      // Resolved through the one guarded reader (with the job paused; no content read): the search
      // itself may run in the sandbox, unpaused.
      const found = await ctx.fs.read(input.path, { maxBytes: 0, signal: ctx.signal });
      const relative = ctx.fs.relative(found.path);
      if (relative !== "" && relative !== ".") args.push("--", relative);
    }

    const result = await ctx.search.ripgrep(args, { signal: ctx.signal, maxOutputBytes: MAX_RIPGREP_BYTES });
    let lines = result.stdout.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    // A cut output may end in half a line.
    if (result.truncated) lines.pop();
    if (result.exitCode === 1 || (result.exitCode === 0 && lines.length === 0)) {
      return { content: `No matches for /${input.pattern}/${input.path === undefined ? "" : ` in ${input.path}`}.` };
    }
    if (result.exitCode > 1 && lines.length === 0) {
      return {
        content:
          `ripgrep failed (exit code ${result.exitCode}). The pattern may not be a valid Rust regex ` +
          "(escape literal ( ) [ ] { } . * + ?), or the path may not exist.",
        isError: true,
      };
    }

    const notes: string[] = [];
    const total = lines.length;
    if (input.head_limit !== undefined && total > input.head_limit) {
      lines = lines.slice(0, input.head_limit);
      notes.push(`showing the first ${input.head_limit} of ${total}${result.truncated ? "+" : ""} lines`);
    } else if (result.truncated) {
      notes.push("output cut at 2 MB; narrow the search");
    }
    if (result.exitCode > 1) notes.push("some files could not be searched");
    const header = mode === "files_with_matches" ? `Found ${plural(total, "file")}\n` : mode === "count" ? `Matches in ${plural(total, "file")}\n` : "";
    const footer = notes.length > 0 ? `\n(${notes.join("; ")})` : "";
    return { content: header + lines.join("\n") + footer };
  },
});
