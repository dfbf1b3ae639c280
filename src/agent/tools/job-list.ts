import { z } from "zod";
import type { BackgroundJobInfo } from "../background-jobs.js";
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

/** One line about a background job, for JobList and JobOutput. */
export function describeJob(job: BackgroundJobInfo, now: number): string {
  const seconds = Math.round(((job.endedAt ?? now) - job.startedAt) / 1000);
  const status = job.status === "exited" ? `exited with code ${job.exitCode}` : job.status.replace("_", " ");
  const events = job.events !== undefined ? `, ${job.events} events` : "";
  const about = job.description !== undefined ? ` (${job.description})` : "";
  return `${job.id}: ${status} after ${seconds}s${events}: ${oneLine(job.command)}${about}`;
}

function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
