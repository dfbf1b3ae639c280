import { z } from "zod";
import { defineTool } from "./tool.js";

export const gitStatusTool = defineTool({
  name: "git_status",
  description: "Shows the current branch and the working tree's changes (porcelain codes: M modified, A added, D deleted, ?? untracked).",
  inputSchema: z.object({}),
  effects: { git: "read" },
  cacheable: true,
  async execute(_input, ctx) {
    const [branch, entries] = await Promise.all([ctx.git.currentBranch(), ctx.git.status()]);
    if (entries.length === 0) return { content: `On branch ${branch}; the working tree is clean.` };
    const lines = entries.map((entry) => `${entry.code} ${entry.path}`);
    return { content: `On branch ${branch}; ${entries.length} changed:\n${lines.join("\n")}` };
  },
});
