import { z } from "zod";
import { defineTool } from "./tool.js";

const inputSchema = z.object({
  count: z.number().int().min(1).max(100).optional().describe("How many commits to show, newest first. Defaults to 10; at most 100."),
});

export const gitLogTool = defineTool({
  name: "git_log",
  description: "Shows the latest commits on the current branch: short sha, date, author, subject.",
  inputSchema,
  effects: { git: "read" },
  cacheable: true,
  async execute(input, ctx) {
    const commits = await ctx.git.log(input.count ?? 10);
    if (commits.length === 0) return { content: "No commits yet." };
    const lines = commits.map((commit) => `${commit.sha.slice(0, 10)} ${commit.date} ${commit.author}: ${commit.subject}`);
    return { content: lines.join("\n") };
  },
});
