import type { ExecPort } from "../agent/ports.js";
import { errorMessage } from "../errors/index.js";

export interface SetupStepResult {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The end of the combined output, for the agent to read when a step failed. */
  tail: string;
}

/** @defaultValue 15 minutes per step: installs can be slow, but never unbounded. */
export const SETUP_STEP_TIMEOUT_MS = 15 * 60_000;
const TAIL_CHARS = 3000;

/**
 * The repo config's `setup:` commands, run before the agent starts: sandboxed like every agent
 * command, with outbound network (no route to the host's loopback or private ranges) and no secrets.
 * A failing step does not stop the job; the agent is told what failed and can work around it.
 */
export async function runSetupSteps(
  commands: readonly string[],
  exec: ExecPort,
  options: { signal: AbortSignal; onStep: (command: string) => void; timeoutMs?: number },
): Promise<SetupStepResult[]> {
  const results: SetupStepResult[] = [];
  for (const command of commands) {
    options.onStep(command);
    try {
      const run = await exec.run(command, {
        timeoutMs: options.timeoutMs ?? SETUP_STEP_TIMEOUT_MS,
        signal: options.signal,
        network: true,
        maxOutputBytes: 200_000,
      });
      results.push({ command, exitCode: run.exitCode, timedOut: run.timedOut, tail: run.output.slice(-TAIL_CHARS) });
    } catch (error) {
      if (options.signal.aborted) throw error;
      results.push({ command, exitCode: null, timedOut: false, tail: `could not start: ${errorMessage(error)}` });
    }
  }
  return results;
}

/** What the agent reads about the setup, appended to its first message; empty when there was none. */
export function renderSetupReport(results: readonly SetupStepResult[]): string {
  if (results.length === 0) return "";
  const lines = ["", "## Setup steps", "Tackle ran the repository's setup commands before you started:"];
  for (const step of results) {
    const status = step.timedOut ? "timed out" : step.exitCode === 0 ? "succeeded" : `failed (exit ${step.exitCode ?? "none"})`;
    lines.push(`- \`${step.command}\`: ${status}`);
    if (step.exitCode !== 0 || step.timedOut) lines.push("  Last output:", "  ```", ...step.tail.split("\n").map((l) => `  ${l}`), "  ```");
  }
  return lines.join("\n");
}
