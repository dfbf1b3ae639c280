import { z } from "zod";
import type { WorktreeInfo } from "../ports.js";
import { defineTool, type ToolResult } from "./tool.js";

const inputSchema = z.object({
  action: z
    .enum(["create", "enter", "leave", "list", "remove"])
    .describe("create a worktree (not entered), enter one, leave back to the main checkout, list them, or remove one."),
  name: z.string().optional().describe("The worktree's name (a-z, 0-9, -; up to 40), for create, enter and remove."),
});

const NEEDS_NAME = new Set(["create", "enter", "remove"]);

export const worktreeTool = defineTool({
  name: "Worktree",
  description: [
    "Extra git worktrees of this run's repository, each on its own new branch, to try something aside without touching the main checkout.",
    "create makes one from the current HEAD; enter moves every file, search, shell and git tool into it; leave goes back to the main checkout;",
    "remove deletes one (not the current one) with its branch. Only the main checkout's branch is handed back when the run ends:",
    "merge or cherry-pick what you keep into it (the branches are shared); the other worktrees and their branches are dropped.",
  ].join("\n"),
  inputSchema,
  // Entering or leaving changes the tree every tool sees, as a branch switch does.
  effects: { git: "branch" },
  async execute(input, ctx): Promise<ToolResult> {
    const worktrees = ctx.worktrees;
    if (worktrees === undefined) return { content: "Worktrees are only available in local runs (tackle run --local).", isError: true };
    const name = input.name?.trim() ?? "";
    if (NEEDS_NAME.has(input.action) && name === "") {
      return { content: `name is required for action "${input.action}"; list the worktrees with action "list".`, isError: true };
    }
    switch (input.action) {
      case "create": {
        const created = await worktrees.create(name, ctx.signal);
        return {
          content: `Created worktree "${created.name}" at ${created.root} on the new branch ${created.branch} (from ${shortHead(created)}). You are still where you were; enter it with action "enter".`,
        };
      }
      case "enter": {
        const entered = await worktrees.enter(name);
        return { content: `Now in worktree "${entered.name}": every tool works in ${entered.root} (branch ${entered.branch}). Leave with action "leave".` };
      }
      case "leave": {
        const main = await worktrees.leave();
        return { content: `Now in the main checkout ${main.root} (branch ${main.branch}), whose branch is handed back at the end.` };
      }
      case "list":
        return { content: renderList(await worktrees.list(ctx.signal)) };
      case "remove": {
        const removed = await worktrees.remove(name, ctx.signal);
        return { content: `Removed worktree "${removed.name}" and its branch ${removed.branch}.` };
      }
    }
  },
});

function shortHead(info: WorktreeInfo): string {
  return info.head === null ? "HEAD" : `${info.head.sha.slice(0, 7)} ${info.head.subject}`;
}

function renderList(worktrees: readonly WorktreeInfo[]): string {
  const lines = worktrees.map((tree) => {
    const checkedOut = tree.head !== null && tree.head.branch !== tree.branch ? ` (now on ${tree.head.branch})` : "";
    return `${tree.current ? "*" : " "} ${tree.name}  ${tree.branch}${checkedOut}  ${shortHead(tree)}  ${tree.root}`;
  });
  return [...lines, "Only main's branch is handed back at the end; the others are dropped."].join("\n");
}
