import { open } from "node:fs/promises";
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
    const absolute = await ctx.fs.resolve(input.file_path, "read");
    const shown = ctx.fs.relative(absolute);
    const content = await readCapped(absolute);
    if (content === "missing") return { content: `${shown} does not exist; use Glob to find files.`, isError: true };
    if (content === "not_a_file") return { content: `${shown} is not a regular file.`, isError: true };
    if (content === "too_large") return { content: `${shown} is over ${MAX_ARTIFACT_BYTES / 1024 / 1024} MB; upload a smaller file.`, isError: true };
    const name = shown.split("/").pop() ?? shown;
    const artifact = await ctx.artifacts.upload({ name, content, ...(input.description ? { description: input.description } : {}) }, ctx.signal);
    const where = artifact.url === null ? "" : ` (${artifact.url})`;
    return { content: `Uploaded ${shown} as artifact ${artifact.id}, ${artifact.bytes} bytes${where}.` };
  },
});

/** The file's bytes, read through one descriptor (what was checked is what is read), or why not. */
async function readCapped(file: string): Promise<Buffer | "missing" | "not_a_file" | "too_large"> {
  const handle = await open(file, "r").catch(() => null);
  if (handle === null) return "missing";
  try {
    const info = await handle.stat();
    if (!info.isFile()) return "not_a_file";
    if (info.size > MAX_ARTIFACT_BYTES) return "too_large";
    const buffer = Buffer.alloc(MAX_ARTIFACT_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_ARTIFACT_BYTES) return "too_large";
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
