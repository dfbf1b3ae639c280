import { z } from "zod";
import { defineTool } from "./tool.js";

/** Branches the agent creates carry this prefix, so they never collide with the repository's own. */
export const AGENT_BRANCH_PREFIX = "tackle/";

const inputSchema = z.object({
  action: z.enum(["list", "create", "switch"]).describe("list local branches, create a new branch (and switch to it), or switch to an existing one."),
  name: z.string().optional().describe(`Branch name, for create and switch. New branches must start with "${AGENT_BRANCH_PREFIX}".`),
});

export const gitBranchTool = defineTool({
  name: "git_branch",
  description: [
    "Lists, creates or switches local branches. You normally stay on the branch the job started on; the host pushes it.",
    `New branch names must start with "${AGENT_BRANCH_PREFIX}". Commit or discard changes before switching.`,
  ].join("\n"),
  inputSchema,
  effects: { git: "branch" },
  async execute(input, ctx) {
    const current = await ctx.git.currentBranch();
    if (input.action === "list") {
      const branches = await ctx.git.listBranches();
      return { content: branches.map((branch) => `${branch === current ? "*" : " "} ${branch}`).join("\n") || "No branches." };
    }
    const name = input.name?.trim() ?? "";
    if (name === "") return { content: `name is required for action "${input.action}".`, isError: true };
    const invalid = branchNameProblem(name);
    if (invalid !== undefined) return { content: `"${name}" is not a valid branch name: ${invalid}.`, isError: true };
    const branches = await ctx.git.listBranches();

    if (input.action === "create") {
      if (!name.startsWith(AGENT_BRANCH_PREFIX)) {
        return { content: `New branch names must start with "${AGENT_BRANCH_PREFIX}", e.g. "${AGENT_BRANCH_PREFIX}${name}".`, isError: true };
      }
      if (branches.includes(name)) return { content: `Branch ${name} already exists; use action "switch".`, isError: true };
      await ctx.git.createBranch(name);
      await ctx.git.switchBranch(name);
      return { content: `Created branch ${name} from ${current} and switched to it.` };
    }

    if (name === current) return { content: `Already on ${name}.` };
    if (name === ctx.baseBranch) {
      return { content: `Switching to the base branch ${name} is not allowed: work stays on a branch the PR is made from.`, isError: true };
    }
    if (!branches.includes(name)) return { content: `No local branch ${name}. Branches: ${branches.join(", ")}.`, isError: true };
    const dirty = await ctx.git.status();
    if (dirty.length > 0) {
      return {
        content: `The working tree has ${dirty.length} uncommitted change(s) (${dirty
          .slice(0, 5)
          .map((entry) => entry.path)
          .join(", ")}); git_commit them before switching.`,
        isError: true,
      };
    }
    await ctx.git.switchBranch(name);
    return { content: `Switched from ${current} to ${name}.` };
  },
});

/** The rules of `git check-ref-format --branch`, enough to refuse names git would reject or misread. */
export function branchNameProblem(name: string): string | undefined {
  if (name.length > 200) return "it is longer than 200 characters";
  if (!/^[A-Za-z0-9._/-]+$/.test(name)) return "use only letters, digits, '.', '_', '-' and '/'";
  if (name.startsWith("-") || name.startsWith("/") || name.endsWith("/")) return "it may not start with '-' or '/', nor end with '/'";
  if (name.includes("..") || name.includes("//")) return "it may not contain '..' or '//'";
  if (name.endsWith(".") || name.endsWith(".lock")) return "it may not end with '.' or '.lock'";
  if (name.split("/").some((part) => part.startsWith("."))) return "no part of it may start with '.'";
  if (name === "HEAD") return "HEAD is reserved";
  return undefined;
}
