import { z } from "zod";
import { TackleError } from "../../errors/index.js";
import type { ExecResult } from "../ports.js";
import { defineTool, type PolicyDecision, type ToolContext, type ToolResult } from "./tool.js";

/** @defaultValue ms a command may run when `timeout` is not given */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Output the exec port keeps; the registry cuts what it returns to the model further. */
const MAX_OUTPUT_BYTES = 1_000_000;

const inputSchema = z.object({
  command: z.string().min(1).describe("The shell command to run (bash), from the repository root."),
  timeout: z.number().int().min(1).optional().describe(`Time limit in milliseconds. Defaults to ${BASH_DEFAULT_TIMEOUT_MS}; at most ${BASH_MAX_TIMEOUT_MS}.`),
  description: z.string().optional().describe("A few words on what the command does, for the job's log."),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      "Start it in the background and return a job id at once (a dev server, a watch build); see JobOutput, JobStop. timeout then applies only if given.",
    ),
});

export const bashTool = defineTool({
  name: "Bash",
  description: [
    "Runs a bash command in the repository's sandbox (cwd = repository root; no network; no credentials) and returns its",
    "combined stdout and stderr with the exit code. A non-zero exit is reported, not treated as a failure of the tool.",
    `The timeout is in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, max ${BASH_MAX_TIMEOUT_MS}). Long outputs are cut:`,
    "redirect them to a file and Read or Grep it. Use Read, Edit, Write, Glob and Grep rather than cat, sed, find or grep.",
  ].join("\n"),
  inputSchema,
  effects: { runs: { command: "command" } },
  truncationHint: "redirect the output to a file and Read or Grep it",
  checkArgs(input): PolicyDecision {
    if (input.timeout !== undefined && input.timeout > BASH_MAX_TIMEOUT_MS) {
      return {
        action: "deny",
        reason: `timeout is in milliseconds; ${input.timeout} ms exceeds the ${BASH_MAX_TIMEOUT_MS} ms maximum`,
      };
    }
    return { action: "allow" };
  },
  async execute(input, ctx) {
    if (input.run_in_background === true) return startInBackground(input, ctx);
    const timeoutMs = input.timeout ?? BASH_DEFAULT_TIMEOUT_MS;
    const result = await ctx.exec.run(input.command, { timeoutMs, signal: ctx.signal, maxOutputBytes: MAX_OUTPUT_BYTES });
    if (ctx.signal.aborted) throw new TackleError("aborted", "the command was stopped: the job was cancelled");
    return { content: describeCommandResult(result, timeoutMs) };
  },
});

async function startInBackground(input: z.infer<typeof inputSchema>, ctx: ToolContext): Promise<ToolResult> {
  if (ctx.background === undefined) {
    return { content: "run_in_background is not available here: run the command in the foreground (with a timeout of up to 600000 ms).", isError: true };
  }
  const job = await ctx.background.startBash(input.command, {
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.timeout !== undefined ? { timeoutMs: input.timeout } : {}),
  });
  return {
    content: `Started in the background as ${job.id}. Read its output with JobOutput (job_id "${job.id}", wait_ms to wait for more); stop it with JobStop. You are told when it exits.`,
  };
}

/** A command's output and how it ended, as a tool result says it. */
export function describeCommandResult(result: ExecResult, timeoutMs: number): string {
  const notes: string[] = [];
  if (result.droppedBytes > 0) notes.push(`${result.droppedBytes} more bytes of output were dropped`);
  if (result.timedOut) {
    notes.push(`timed out after ${timeoutMs} ms and was killed${timeoutMs < 1000 ? " (timeout is in milliseconds)" : ""}`);
  } else if (result.exitCode === null) notes.push("killed by a signal");
  else notes.push(`exit code ${result.exitCode}`);

  const output = result.output === "" ? "(no output)" : result.output.replace(/\n$/, "");
  return `${output}\n[${notes.join("; ")}]`;
}
