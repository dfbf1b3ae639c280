import { z } from "zod";
import { code, inert, joinMarkdown, link, md, type SurfaceMarkdown } from "../../util/surface-markdown.js";
import type { ArtifactInfo } from "../ports.js";
import { defineTool } from "./tool.js";

/** GitHub refuses comments over 65536 characters; leave room for what the host adds. */
const MAX_BODY_CHARS = 60_000;

const inputSchema = z.object({
  body: z.string().trim().min(1).max(MAX_BODY_CHARS).describe("The comment to post on the issue (Markdown)."),
  artifact_ids: z.array(z.string()).max(20).optional().describe("Ids from UploadArtifact to link in the comment."),
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
    const ids = [...new Set(input.artifact_ids ?? [])];
    const uploaded = ctx.artifacts?.list() ?? [];
    const unknown = ids.filter((id) => !uploaded.some((artifact) => artifact.id === id));
    if (unknown.length > 0) {
      const known = uploaded.length === 0 ? "none was uploaded in this job" : `this job's are ${uploaded.map((a) => a.id).join(", ")}`;
      return { content: `Unknown artifact id ${unknown.join(", ")} (${known}); nothing was posted.`, isError: true };
    }
    const links = ids.map((id) => renderArtifactLink(uploaded.find((artifact) => artifact.id === id)!));
    const footer = links.length === 0 ? undefined : md`**Artifacts:**\n${joinMarkdown(links)}`;
    // Masked and made the agent's prose on its way out: by the job's GitHub port, or by the local run's printer.
    const { url } = await ctx.issue.report({ prose: input.body, ...(footer === undefined ? {} : { footer }) }, ctx.signal);
    return { content: `Posted: ${url}` };
  },
});

/** One list item: a link to the dashboard's download, or the name where there is none (the Action's run artifacts). */
export function renderArtifactLink(artifact: ArtifactInfo): SurfaceMarkdown {
  const label = `${artifact.name} (${artifact.id})`;
  return artifact.url === null ? md`- ${code(label)}` : md`- ${link(inert(label), artifact.url)}`;
}
