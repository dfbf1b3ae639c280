import { z } from "zod";
import { defineTool } from "./tool.js";

/** GitHub refuses comments over 65536 characters; leave room for what the host adds. */
const MAX_BODY_CHARS = 60_000;

const inputSchema = z.object({
  body: z.string().trim().min(1).max(MAX_BODY_CHARS).describe("The comment to post on the issue (Markdown)."),
  artifact_ids: z.array(z.string()).optional().describe("Artifacts to attach. Not supported yet: ignored."),
});

export const reportToIssueTool = defineTool({
  name: "ReportToIssue",
  description: [
    "Posts one comment on the issue this job works on. Use it sparingly: for a question to the maintainers, or findings that",
    "do not belong in the PR. Progress is already shown from your TodoWrite checklist, so do not post status updates.",
  ].join("\n"),
  inputSchema,
  effects: { issue: "write" },
  async execute(input, ctx) {
    // Masked on its way out: by the job's redacting GitHub client, or by the local run's printer.
    const { url } = await ctx.issue.report(input.body, ctx.signal);
    const ignored = input.artifact_ids !== undefined && input.artifact_ids.length > 0 ? " (artifact_ids ignored: attachments are not supported yet)" : "";
    return { content: `Posted: ${url}${ignored}` };
  },
});
