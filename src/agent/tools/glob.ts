import { z } from "zod";
import { setImmediate as yieldEventLoop } from "node:timers/promises";
import { compileGlob, GLOB_MAX_CHARS, GLOB_MAX_STEPS, GLOB_YIELD_STEPS, GlobBudgetError, type GlobMatcher } from "../../util/glob-machine.js";
import { defineTool } from "./tool.js";

/** @defaultValue files listed at most; the rest is counted */
export const GLOB_MAX_RESULTS = 100;

const inputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .max(GLOB_MAX_CHARS)
    .describe('Glob matched against paths relative to `path`, e.g. "**/*.ts", "src/**/*.{js,jsx}", "*.md" (top level only).'),
  path: z.string().optional().describe("Directory to search, relative to the repository root. Defaults to the root."),
});

export const globTool = defineTool({
  name: "Glob",
  description: [
    "Finds files by name pattern (`**` any directories, `*` and `?` within a name, `{a,b}` alternatives), newest first.",
    `Lists at most ${GLOB_MAX_RESULTS} paths, relative to the repository root. Includes hidden and git-ignored files,`,
    "but never .git or node_modules; does not follow symlinked directories. To search file contents, use Grep.",
  ].join("\n"),
  inputSchema,
  effects: { reads: { path: "path", names: true, bySearch: true } },
  cacheable: true,
  truncationHint: "use a narrower pattern or path",
  async execute(input, ctx) {
    let base = "";
    if (input.path !== undefined) {
      // What the path is, through the one guarded reader (with the job paused; no content read): the
      // listing itself may run in the sandbox, unpaused.
      const found = await ctx.fs.read(input.path, { maxBytes: 0, signal: ctx.signal });
      base = normalizeBase(ctx.fs.relative(found.path));
      if (found.kind === "missing") return { content: `${base} does not exist; give a directory as path.`, isError: true };
      if (found.kind !== "directory") {
        return { content: `${base} is not a directory; give a directory as path.`, isError: true };
      }
    }
    const pattern = stripRoot(input.pattern, ctx.fs.root);
    // The pattern is the model's, matched on the host: its cost over the whole listing is bounded.
    const matcher = compileGlob(pattern, { maxSteps: GLOB_MAX_STEPS });

    const args = ["--files", "--hidden", "--no-ignore", "--glob", "!.git", "--glob", "!node_modules", "--sortr", "modified"];
    // A pattern without a slash can prefilter in ripgrep: its glob matches the name at any depth, a superset.
    if (!pattern.includes("/")) args.push("--glob", pattern);
    if (base !== "") args.push("--", base);
    const result = await ctx.search.ripgrep(args, { signal: ctx.signal });
    if (result.exitCode > 1) return { content: `listing files failed (ripgrep exit code ${result.exitCode}).`, isError: true };

    const prefix = base === "" ? "" : `${base}/`;
    let files: string[];
    try {
      const listed = result.stdout.split("\n").filter((line) => line !== "");
      files = await filterListing(listed, (file) => (file.startsWith(prefix) ? file.slice(prefix.length) : file), matcher, ctx.signal);
    } catch (error) {
      if (!(error instanceof GlobBudgetError)) throw error;
      return {
        content: `The pattern is too costly to match against the files listed${base === "" ? "" : ` under ${base}`}: give a narrower path, or a pattern with fewer \`**\` and alternatives.`,
        isError: true,
      };
    }
    const where = base === "" ? "" : ` under ${base}`;
    if (files.length === 0) return { content: `No files match "${input.pattern}"${where}.` };
    const shown = files.slice(0, GLOB_MAX_RESULTS);
    const more = files.length - shown.length;
    const atLeast = result.truncated ? "at least " : "";
    const note =
      more > 0 || result.truncated
        ? `\n(${atLeast}${files.length} files match; showing the ${shown.length} most recently modified. Narrow the pattern or path to see others.)`
        : "";
    return { content: shown.join("\n") + note };
  },
});

/** Models sometimes send an absolute pattern; make it relative to the root. */
function stripRoot(pattern: string, root: string): string {
  if (pattern.startsWith(`${root}/`)) return pattern.slice(root.length + 1);
  return pattern.startsWith("./") ? pattern.slice(2) : pattern;
}

/** The root may read as "" or "."; ripgrep wants no path argument for it. */
function normalizeBase(relative: string): string {
  return relative === "." ? "" : relative;
}

/**
 * The listed files the pattern matches, tested on the host: the event loop is given back every
 * GLOB_YIELD_STEPS states the matcher visits (other jobs, webhooks and the dashboard run meanwhile),
 * and the whole listing costs at most GLOB_MAX_STEPS (the matcher throws GlobBudgetError past it).
 */
async function filterListing(listed: readonly string[], relative: (file: string) => string, matcher: GlobMatcher, signal: AbortSignal): Promise<string[]> {
  const files: string[] = [];
  let yieldedAt = 0;
  for (const file of listed) {
    if (matcher.test(relative(file))) files.push(file);
    if (matcher.steps - yieldedAt >= GLOB_YIELD_STEPS) {
      yieldedAt = matcher.steps;
      await yieldEventLoop();
      signal.throwIfAborted();
    }
  }
  return files;
}
