import { z } from "zod";
import type { PullRequestRequest } from "../ports.js";
import { defineTool } from "./tool.js";

/** Uncommitted paths named in a refusal; the rest are counted. */
const LISTED_CHANGES = 20;

const inputSchema = z.object({
  title: z.string().trim().min(1).max(256).describe("Pull request title: what the change does, in one line."),
  body: z
    .string()
    .max(60_000)
    .optional()
    .describe('Pull request description (Markdown): what changed, why, and how it was tested. "Fixes #N" is added when missing.'),
  draft: z.boolean().optional().describe("Open as a draft. Defaults to the repository's setting (a draft unless it says otherwise)."),
  base: z.string().min(1).optional().describe("Branch to merge into. Defaults to the repository's default branch (or the PR's base)."),
});

export const createPullRequestTool = defineTool({
  name: "create_pull_request",
  description: [
    "Publishes the current branch: the host checks the diff, pushes it, and opens a pull request (or updates the open one).",
    "Commit everything with git_commit first: uncommitted changes are refused. Call it again after new commits to push them.",
  ].join("\n"),
  inputSchema,
  effects: { publishes: true },
  async execute(input, ctx) {
    const base = input.base ?? ctx.baseBranch;
    const [branch, status] = await Promise.all([ctx.git.currentBranch(), ctx.git.status()]);
    if (branch === base) {
      return {
        content: `The current branch is the base branch ${base}; a pull request needs its own branch. Create one with git_branch (action "create").`,
        isError: true,
      };
    }
    if (status.length > 0) {
      const listed = status.slice(0, LISTED_CHANGES).map((entry) => `${entry.code} ${entry.path}`);
      const more = status.length > LISTED_CHANGES ? `\n… and ${status.length - LISTED_CHANGES} more` : "";
      return {
        content: `The working tree has uncommitted changes; git_commit them (or remove them) first:\n${listed.join("\n")}${more}`,
        isError: true,
      };
    }

    // The title and body are masked on their way out, by the job's redacting GitHub client.
    const request: PullRequestRequest = {
      title: input.title,
      body: input.body ?? "",
      draft: input.draft ?? ctx.draftByDefault ?? true,
      ...(input.base === undefined ? {} : { base: input.base }),
    };
    const result = await ctx.pulls.createOrUpdate(request, ctx.signal, ctx.approvePublish);
    ctx.state.pullRequest = result;
    const link = result.url === null ? "" : `\n${result.url}`;
    return { content: `${result.message}${link}` };
  },
});
