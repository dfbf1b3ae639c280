import { z } from "zod";
import { defineTool } from "./tool.js";

/** The largest artifact; the job store holds the same cap (JOB_STORE_LIMITS.maxArtifactBytes). */
export const MAX_ARTIFACT_BYTES = 5 * 1024 * 1024;

const inputSchema = z.object({
  file_path: z.string().min(1).describe("The file: relative to the repository root, or absolute inside it."),
  description: z.string().trim().max(200).optional().describe("One line saying what it is."),
});

export const uploadArtifactTool = defineTool({
  name: "UploadArtifact",
  description: [
    "Publishes one worktree file as this job's artifact, for a person to receive (a report, a screenshot, a log),",
    "linked from the tracking comment. Not a save button: commit work instead. At most 5 MB.",
    "Returns an artifact id for ReportToIssue's artifact_ids.",
  ].join("\n"),
  inputSchema,
  effects: { reads: { path: "file_path" } },
  async execute(input, ctx) {
    if (ctx.artifacts === undefined) return { content: "Artifacts are not available in this run.", isError: true };
    const file = await ctx.fs.read(input.file_path, { maxBytes: MAX_ARTIFACT_BYTES, signal: ctx.signal });
    const shown = ctx.fs.relative(file.path);
    if (file.kind === "too_large") return { content: `${shown} is over ${MAX_ARTIFACT_BYTES / 1024 / 1024} MB; upload a smaller file.`, isError: true };
    if (file.kind === "missing") return { content: `${shown} does not exist; use Glob to find files.`, isError: true };
    if (file.kind === "directory") return { content: `${shown} is not a regular file.`, isError: true };
    const content = file.bytes;
    const name = shown.split("/").pop() ?? shown;
    const artifact = await ctx.artifacts.upload({ name, content, ...(input.description ? { description: input.description } : {}) }, ctx.signal);
    const where = artifact.url === null ? "" : ` (${artifact.url})`;
    return { content: `Uploaded ${shown} as artifact ${artifact.id}, ${artifact.bytes} bytes${where}.` };
  },
});
