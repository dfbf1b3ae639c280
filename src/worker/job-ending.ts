// How a job ends: its final tracking state from the agent's result, its stats, and the ending of a job that threw.
import type { AgentResult } from "../agent/index.js";
import type { SessionState } from "../agent/ports.js";
import { errorMessage, isTackleError } from "../errors/index.js";
import type { HeldBudget } from "./reserve-job-budget.js";
import type { Tracker } from "./tracker.js";
import type { JobStats, TrackingState } from "./tracking-comment.js";

import type { JobContext } from "./job-context.js";
import type { JobOutcome } from "./job-deps.js";
export function emptyStats(durationMs: number): JobStats {
  return { durationMs, turns: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, costUsd: 0 };
}

export function statsOf(result: AgentResult, durationMs: number, subagentTurns = 0): JobStats {
  return {
    durationMs,
    turns: result.turns,
    ...(subagentTurns > 0 ? { subagentTurns } : {}),
    inputTokens: result.usage.input + result.usage.cacheWrite,
    outputTokens: result.usage.output,
    cacheReadTokens: result.usage.cacheRead,
    costUsd: result.costUsd,
  };
}

/** A job that ran out of budget says when its budget was a daily cap's remainder rather than its own. */
export function withLoweredBudget(ending: FinalState, budget: HeldBudget): FinalState {
  if (ending.phase !== "budget_exhausted" || budget.lowered === null) return ending;
  return { ...ending, reason: `${ending.reason} (${budget.lowered})` };
}

export type FinalState = Exclude<TrackingState, { phase: "queued" | "working" }>;

/** A job that threw: the tracking comment says how it ended; what the queue should retry is rethrown. */
export async function endInError(job: JobContext, tracker: Tracker, error: unknown, attempt: { attempt: number; maxAttempts: number }): Promise<JobOutcome> {
  const { signal, log, redact, deps, startedAt } = job;
  const lastAttempt = attempt.attempt >= attempt.maxAttempts;
  const aborted = signal.aborted || isTackleError(error, "aborted");
  // A worker shutting down past its drain bound aborts with a retryable reason: the job is requeued.
  const shutdown = signal.aborted && isTackleError(signal.reason) && signal.reason.retryable;
  const retryable = shutdown || (!aborted && isTackleError(error) && error.retryable && !lastAttempt);
  log.error({ err: error, attempt: attempt.attempt }, "job failed");
  if (isTackleError(error, "sandbox_unavailable")) deps.metrics?.sandboxFailure("job");
  const message = redact(errorMessage(error));
  const reason = shutdown
    ? "the worker shut down; another worker will pick the job up"
    : aborted
      ? "stopped on request"
      : message + (retryable ? ` (attempt ${attempt.attempt} of ${attempt.maxAttempts}; will retry)` : "");
  const stats = emptyStats(deps.clock() - startedAt);
  await tracker.flush(shutdown ? { phase: "queued", position: 1 } : { phase: aborted ? "cancelled" : "failed", reason, stats });
  if (retryable) throw error;
  return { status: aborted ? "cancelled" : "failed", reason: message, pullRequestUrl: null, stats };
}

export function finalState(
  result: AgentResult,
  state: SessionState,
  pullRequestUrl: string | null,
  durationMs: number,
  sandboxed: boolean,
  subagentTurns: number,
): Exclude<TrackingState, { phase: "queued" | "working" }> {
  const stats = statsOf(result, durationMs, subagentTurns);
  const base = {
    reason: result.reasonText ?? result.reason,
    stats,
    pullRequestUrl,
    ...(state.done?.summary ? { summary: state.done.summary } : {}),
    ...(sandboxed ? {} : { unsandboxed: true }),
  };
  switch (result.reason) {
    case "task_done":
      return { phase: pullRequestUrl ? "done" : "no_changes", ...base };
    case "max_turns":
    case "max_cost":
    case "deadline":
      return { phase: "budget_exhausted", ...base, ...(pullRequestUrl ? { kept: `the work so far is in ${pullRequestUrl}` } : {}) };
    case "aborted":
      return { phase: "cancelled", ...base };
    case "no_tool_calls":
      return { phase: pullRequestUrl ? "done" : "no_changes", ...base };
    default:
      return { phase: "failed", ...base };
  }
}
