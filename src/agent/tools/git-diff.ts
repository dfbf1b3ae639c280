import { z } from "zod";
import { defineTool } from "./tool.js";

const inputSchema = z.object({
  staged: z.boolean().optional().describe("Show staged changes (git diff --cached) instead of unstaged ones."),
});

export const gitDiffTool = defineTool({
  name: "git_diff",
  description: "Shows the working tree's uncommitted changes as a unified diff (or, with staged, what is staged). Untracked files are listed, not diffed.",
  inputSchema,
  effects: { git: "read" },
  cacheable: true,
  truncationHint: "use Read on the changed files, or git_status for the list",
  async execute(input, ctx) {
    const staged = input.staged === true;
    const [diff, entries] = await Promise.all([ctx.git.diff({ staged }), ctx.git.status()]);
    const untracked = staged ? [] : entries.filter((entry) => entry.code === "??").map((entry) => entry.path);
    const parts: string[] = [];
    parts.push(diff.trim() === "" ? `No ${staged ? "staged" : "unstaged"} changes to tracked files.` : diff.replace(/\n$/, ""));
    if (untracked.length > 0) parts.push(`Untracked files (not in the diff):\n${untracked.join("\n")}`);
    return { content: parts.join("\n\n") };
  },
});
