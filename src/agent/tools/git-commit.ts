import { z } from "zod";
import { defineTool } from "./tool.js";

const inputSchema = z.object({
  message: z.string().trim().min(1).max(5000).describe("The commit message: a short summary line, then a blank line and details if useful."),
  files: z
    .array(z.string().min(1))
    .optional()
    .describe("Paths to stage and commit, relative to the repository root. Defaults to all changes, untracked files included."),
});

export const gitCommitTool = defineTool({
  name: "git_commit",
  description: "Stages the given files (default: every change) and commits them on the current branch. Never pushes: create_pull_request publishes.",
  inputSchema,
  effects: { git: { commit: "files" } },
  async execute(input, ctx) {
    let files: string[] | undefined;
    if (input.files !== undefined) {
      files = [];
      for (const file of input.files) files.push(ctx.fs.relative(await ctx.fs.resolve(file, "write")));
    }
    const sha = await ctx.git.commit(input.message, files);
    if (sha === null) {
      const scope = files === undefined ? "" : ` among ${files.join(", ")}`;
      return { content: `Nothing to commit${scope}: there are no changes.` };
    }
    const branch = await ctx.git.currentBranch();
    const subject = input.message.split("\n")[0] ?? "";
    return { content: `Committed ${sha.slice(0, 10)} on ${branch}: ${subject}` };
  },
});
