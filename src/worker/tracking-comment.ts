import type { Todo } from "../agent/ports.js";
import { truncateMiddle } from "../util/truncate-middle.js";

/** GitHub refuses a comment body over 65,536 characters; an edit that fails leaves the comment stale. */
export const MAX_TRACKING_COMMENT_CHARS = 65_000;

export type TrackingState =
  | { phase: "queued"; position: number }
  | { phase: "working"; step: string; todos: Todo[]; startedAt: number; unsandboxed?: boolean }
  | {
      phase: "done" | "no_changes" | "failed" | "cancelled" | "budget_exhausted";
      reason: string;
      summary?: string;
      pullRequestUrl?: string | null;
      kept?: string;
      stats: JobStats;
      unsandboxed?: boolean;
    };

export interface JobStats {
  durationMs: number;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number;
}

/** Marks the comment as this job's, so a rerun of the job (after a crash or retry) edits the same one. */
export function trackingMarker(jobId: string): string {
  return `<!-- tackle:tracking job=${jobId} -->`;
}

const TITLES: Record<Exclude<TrackingState["phase"], "queued" | "working">, string> = {
  done: "✅ Tackle finished",
  no_changes: "✅ Tackle finished: no changes needed",
  failed: "❌ Tackle failed",
  cancelled: "⏹️ Tackle was stopped",
  budget_exhausted: "⚠️ Tackle ran out of budget",
};

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

function formatTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function renderTodos(todos: readonly Todo[]): string[] {
  return todos.map((todo) => {
    const box = todo.status === "completed" ? "[x]" : "[ ]";
    const text = todo.status === "in_progress" ? `**${todo.content}** (in progress)` : todo.content;
    return `- ${box} ${text}`;
  });
}

/**
 * The tracking comment's body for one state; pure (test/unit/worker/tracking-comment.test.ts checks
 * each state by value). A body that would pass GitHub's limit loses the middle of its longest text
 * (the agent's summary or todos), keeping the marker at the top and the stats at the bottom.
 */
export function renderTrackingComment(
  state: TrackingState,
  jobId: string,
  now: number = Date.now(),
  /** The command name for the "how to stop" hint; null where there are no commands (the Action). */
  commandName: string | null = "tackle",
): string {
  const body = renderBody(state, jobId, now, commandName);
  return truncateMiddle(body, MAX_TRACKING_COMMENT_CHARS, "cut to fit GitHub's comment limit");
}

function renderBody(
  state: TrackingState,
  jobId: string,
  now: number = Date.now(),
  /** The command name for the "how to stop" hint; null where there are no commands (the Action). */
  commandName: string | null = "tackle",
): string {
  const lines: string[] = [trackingMarker(jobId)];
  if (state.phase === "queued") {
    lines.push(
      state.position <= 1
        ? "⏳ **Tackle** has queued this job; it starts shortly."
        : `⏳ **Tackle** has queued this job: position ${state.position} in the queue.`,
    );
    return lines.join("\n");
  }
  if (state.phase === "working") {
    lines.push(`🛠️ **Tackle is working on this** (${formatDuration(now - state.startedAt)} so far)`, "");
    lines.push(`Current step: ${state.step}`);
    if (state.todos.length > 0) lines.push("", ...renderTodos(state.todos));
    if (state.unsandboxed) lines.push("", "⚠️ This job runs without a sandbox (`TACKLE_SANDBOX=off`).");
    if (commandName) lines.push("", `_Comment \`/${commandName} stop\` to cancel._`);
    return lines.join("\n");
  }
  lines.push(`**${TITLES[state.phase]}**`, "");
  if (state.pullRequestUrl) lines.push(`Pull request: ${state.pullRequestUrl}`, "");
  if (state.summary) lines.push(state.summary.trim(), "");
  if (state.phase !== "done") lines.push(`Reason: ${state.reason}`, "");
  if (state.kept) lines.push(`Kept: ${state.kept}`, "");
  const s = state.stats;
  lines.push(
    `<sub>${formatDuration(s.durationMs)} · ${s.turns} turns · ${formatTokens(s.inputTokens + s.cacheReadTokens)} input / ` +
      `${formatTokens(s.outputTokens)} output tokens · $${s.costUsd.toFixed(2)}</sub>`,
  );
  if (state.unsandboxed) lines.push("", "⚠️ This job ran without a sandbox (`TACKLE_SANDBOX=off`).");
  return lines.join("\n");
}
