import { z } from "zod";
import { TackleError } from "../../errors/index.js";
import { defineTool } from "./tool.js";
import { describeJob } from "../background-jobs.js";

export const JOB_OUTPUT_MAX_WAIT_MS = 600_000;

const inputSchema = z.object({
  job_id: z.string().min(1).describe("The id Bash (run_in_background) or Monitor returned."),
  wait_ms: z.number().int().min(0).max(JOB_OUTPUT_MAX_WAIT_MS).optional().describe("Wait up to this long for new output or the end. Default 0."),
});

export const jobOutputTool = defineTool({
  name: "JobOutput",
  description: "Returns a background command's new output since the last read, its status and exit code.",
  inputSchema,
  effects: { background: "read" },
  truncationHint: "the command's output is cut; have it write to a file and Read or Grep that",
  async execute(input, ctx) {
    if (ctx.background === undefined) throw new TackleError("workspace", "there are no background commands here");
    const read = await ctx.background.read(input.job_id, input.wait_ms ?? 0, ctx.signal);
    const dropped = read.droppedChars > 0 ? `[${read.droppedChars} earlier characters were dropped unread]\n` : "";
    const output = read.output === "" ? "(no new output)" : read.output.replace(/\n$/, "");
    return { content: `${dropped}${output}\n[${describeJob(read.job, Date.now())}]` };
  },
});
