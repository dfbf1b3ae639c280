import { z } from "zod";
import { TackleError } from "../../errors/index.js";
import { MONITOR_DEFAULT_EVENTS, MONITOR_DEFAULT_TIMEOUT_MS, MONITOR_MAX_EVENTS, MONITOR_MAX_TIMEOUT_MS } from "../background-jobs.js";
import { defineTool } from "./tool.js";

const inputSchema = z.object({
  command: z.string().min(1).describe("A bash command that stays quiet and prints a line when something happens (e.g. tail -f log | grep ERROR)."),
  description: z.string().optional().describe("What it watches for."),
  timeout: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Milliseconds before it is stopped. Default ${MONITOR_DEFAULT_TIMEOUT_MS}; at most ${MONITOR_MAX_TIMEOUT_MS}.`),
  max_events: z.number().int().min(1).optional().describe(`Stop after this many events. Default ${MONITOR_DEFAULT_EVENTS}; at most ${MONITOR_MAX_EVENTS}.`),
});

export const monitorTool = defineTool({
  name: "Monitor",
  description: "Runs a command in the background; each line it prints reaches you as an event with your next turn. Returns its id (JobList, JobStop).",
  inputSchema,
  effects: { runs: { command: "command", inBackground: true } },
  checkArgs(input) {
    if (input.timeout !== undefined && input.timeout > MONITOR_MAX_TIMEOUT_MS) {
      return { action: "deny", reason: `timeout is in milliseconds; ${input.timeout} ms exceeds the ${MONITOR_MAX_TIMEOUT_MS} ms maximum` };
    }
    if (input.max_events !== undefined && input.max_events > MONITOR_MAX_EVENTS) {
      return { action: "deny", reason: `max_events ${input.max_events} exceeds the maximum of ${MONITOR_MAX_EVENTS}` };
    }
    return { action: "allow" };
  },
  async execute(input, ctx) {
    if (ctx.background === undefined) throw new TackleError("workspace", "Monitor is not available here");
    const job = await ctx.background.startMonitor(input.command, {
      ...(input.description !== undefined ? { description: input.description } : {}),
      timeoutMs: input.timeout ?? MONITOR_DEFAULT_TIMEOUT_MS,
      maxEvents: input.max_events ?? MONITOR_DEFAULT_EVENTS,
    });
    return { content: `Monitoring as ${job.id}. Its lines arrive as events with your next turns; JobStop "${job.id}" ends it.` };
  },
});
