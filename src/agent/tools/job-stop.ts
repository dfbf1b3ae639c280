import { z } from "zod";
import { TackleError } from "../../errors/index.js";
import { defineTool } from "./tool.js";
import { describeJob } from "../background-jobs.js";

export const jobStopTool = defineTool({
  name: "JobStop",
  description: "Stops a background command or Monitor, with every process it started.",
  inputSchema: z.object({ job_id: z.string().min(1).describe("The job's id.") }),
  effects: { background: "stop" },
  async execute(input, ctx) {
    if (ctx.background === undefined) throw new TackleError("workspace", "there are no background commands here");
    const job = await ctx.background.stop(input.job_id);
    return { content: describeJob(job, Date.now()) };
  },
});
