import { z } from "zod";
import { describeJob } from "../background-jobs.js";
import { defineTool } from "./tool.js";

export const jobListTool = defineTool({
  name: "JobList",
  description: "Lists this job's background commands and Monitors: id, status, exit code, command.",
  inputSchema: z.object({}),
  effects: { background: "read" },
  async execute(_input, ctx) {
    const jobs = ctx.background?.list() ?? [];
    if (jobs.length === 0) return { content: "No background commands were started." };
    return { content: jobs.map((job) => describeJob(job, Date.now())).join("\n") };
  },
});
