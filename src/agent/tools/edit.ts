import { z } from "zod";
import { MAX_PUBLISHED_FILE_BYTES } from "../../config/index.js";
import { defineTool, type ToolResult } from "./tool.js";
import { countChar, numberedExcerpt, plural } from "./format-lines.js";

const inputSchema = z.object({
  file_path: z.string().min(1).describe("The file to edit: relative to the repository root, or absolute inside it."),
  old_string: z.string().describe("The exact text to replace, including indentation. Empty only to create a new file (or fill an empty one)."),
  new_string: z.string().describe("The text to put in its place; must differ from old_string."),
  replace_all: z.boolean().optional().describe("Replace every occurrence of old_string. Defaults to false: old_string must then occur exactly once."),
});

/** Lines of context shown around the edit in the result. */
const EXCERPT_CONTEXT = 3;

export const editTool = defineTool({
  name: "Edit",
  description: [
    "Replaces old_string with new_string in a file. old_string must match the file exactly (whitespace and indentation included)",
    "and occur once, unless replace_all is set; include enough surrounding lines to make it unique.",
    "With an empty old_string, creates a file that does not exist yet. Read the file first so old_string is exact.",
  ].join("\n"),
  inputSchema,
  effects: { writes: { path: "file_path", preview: previewEdit } },
  async execute(input, ctx) {
    if (input.old_string === input.new_string) {
      return { content: "old_string and new_string are identical; there is nothing to change.", isError: true };
    }
    const absolute = await ctx.fs.resolve(input.file_path, "write");
    const shown = ctx.fs.relative(absolute);
    const file = await ctx.fs.read(absolute, { maxBytes: MAX_PUBLISHED_FILE_BYTES, signal: ctx.signal });
    if (file.kind === "directory") return { content: `${shown} is a directory, not a file.`, isError: true };
    if (file.kind === "too_large") {
      return { content: `${shown} is over ${MAX_PUBLISHED_FILE_BYTES} bytes, more than Edit (or a publish) takes; change it with Bash.`, isError: true };
    }

    if (file.kind === "missing") {
      if (input.old_string !== "") {
        return { content: `${shown} does not exist. To create it, use Write (or Edit with an empty old_string).`, isError: true };
      }
      await ctx.fs.writeFile(absolute, input.new_string);
      return { content: `Created ${shown} (${plural(countChar(input.new_string, "\n") + 1, "line")}).` };
    }

    const original = file.bytes.toString("utf8");
    if (input.old_string === "") {
      if (original !== "") {
        return { content: `${shown} already exists and is not empty; give the old_string to replace, or use Write to replace the whole file.`, isError: true };
      }
      await ctx.fs.writeFile(absolute, input.new_string);
      return { content: `Wrote ${shown} (it was empty).` };
    }

    const match = findMatches(original, input.old_string, input.new_string);
    if (match.count === 0) return noMatch(shown, original, input.old_string);
    if (match.count > 1 && input.replace_all !== true) {
      return {
        content:
          `old_string occurs ${match.count} times in ${shown}. Add surrounding lines to old_string so it matches exactly one place, ` +
          "or set replace_all to change every occurrence.",
        isError: true,
      };
    }
    const refused = overLimits(match, file.bytes.length, shown);
    if (refused !== undefined) return refused;
    const first = original.indexOf(match.oldString);
    const updated = replaceMatches(original, match);
    await ctx.fs.writeFile(absolute, updated);

    const startLine = countChar(original, "\n", first) + 1;
    const endLine = startLine + countChar(match.newString, "\n");
    const excerpt = numberedExcerpt(updated, startLine - EXCERPT_CONTEXT, endLine + EXCERPT_CONTEXT);
    const replaced = match.count > 1 ? ` (${match.count} occurrences; the first is shown)` : "";
    return { content: `Edited ${shown}${replaced}:\n${excerpt}` };
  },
});

/**
 * The file as this Edit would leave it, by the same rules as `execute`; `undefined` when the call
 * fails or changes nothing. The policy engine sizes the diff from it without running git.
 */
export function previewEdit(input: z.infer<typeof inputSchema>, current: string | undefined): string | undefined {
  if (input.old_string === input.new_string) return undefined;
  // An empty old_string creates the file, or fills an empty one.
  if (input.old_string === "") return current === undefined || current === "" ? input.new_string : undefined;
  if (current === undefined) return undefined;
  const match = findMatches(current, input.old_string, input.new_string);
  if (match.count === 0 || (match.count > 1 && input.replace_all !== true)) return undefined;
  // Refused when it runs: nothing to estimate.
  if (overLimits(match, Buffer.byteLength(current), "") !== undefined) return undefined;
  return replaceMatches(current, match);
}

/**
 * Occurrences one Edit replaces at most: each becomes a string on the Tackle process (10 MiB of line
 * breaks, replaced all at once, held it 2 s). More is a job for Bash (sed), in the sandbox.
 */
export const MAX_EDIT_OCCURRENCES = 100_000;

/** A refusal when the edit replaces too many occurrences or would make the file larger than Edit takes. */
function overLimits(match: { count: number; oldString: string; newString: string }, bytes: number, shown: string): ToolResult | undefined {
  if (match.count > MAX_EDIT_OCCURRENCES) {
    return {
      content: `old_string occurs more than ${MAX_EDIT_OCCURRENCES} times in ${shown}, more than one Edit replaces; use Bash (sed) for a change this wide.`,
      isError: true,
    };
  }
  const after = bytes + match.count * (Buffer.byteLength(match.newString) - Buffer.byteLength(match.oldString));
  if (after > MAX_PUBLISHED_FILE_BYTES) {
    return {
      content: `the edit would make ${shown} ${after} bytes, over the ${MAX_PUBLISHED_FILE_BYTES} bytes Edit (or a publish) takes.`,
      isError: true,
    };
  }
  return undefined;
}

/** One match (the only one) or all of them: either way, every occurrence. */
function replaceMatches(text: string, match: { oldString: string; newString: string }): string {
  return text.split(match.oldString).join(match.newString);
}

/**
 * Counts exact matches. A file with CRLF line ends gets a second try with the strings converted,
 * since models write "\n" after reading such files.
 */
function findMatches(text: string, oldString: string, newString: string): { count: number; oldString: string; newString: string } {
  const count = countOccurrences(text, oldString);
  if (count > 0 || !text.includes("\r\n") || oldString.includes("\r")) return { count, oldString, newString };
  const crlfOld = oldString.replace(/\n/g, "\r\n");
  return { count: countOccurrences(text, crlfOld), oldString: crlfOld, newString: newString.replace(/\n/g, "\r\n") };
}

/** Non-overlapping occurrences, left to right (as split counts them); past MAX_EDIT_OCCURRENCES it stops at one more. */
function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1 && count <= MAX_EDIT_OCCURRENCES; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** Says why there was no match when a cheap guess finds it: whitespace, or only the first line matching. */
function noMatch(shown: string, text: string, oldString: string): ToolResult {
  const squash = (value: string) => value.replace(/\s+/g, " ").trim();
  let hint = "Check whitespace and indentation (tabs vs spaces), or Read the file again: it may have changed.";
  if (squash(oldString) !== "" && squash(text).includes(squash(oldString))) {
    hint = "The text exists with different whitespace or indentation; copy it exactly from a fresh Read (without the line-number prefix).";
  } else {
    const firstLine = oldString
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim();
    // firstLine holds no "\n": the line of its first occurrence is the first line that includes it.
    const at = firstLine === undefined ? -1 : text.indexOf(firstLine);
    if (at >= 0 && oldString.includes("\n")) {
      hint = `The first line of old_string appears at line ${countChar(text, "\n", at) + 1}, but the following lines differ; Read around it and copy them exactly.`;
    }
  }
  return { content: `old_string was not found in ${shown}. ${hint}`, isError: true };
}
