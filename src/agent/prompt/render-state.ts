import type { SessionState } from "../ports.js";

/** What is left of the run's budgets, as the loop sees it before a model call. */
export interface BudgetView {
  /** The turn about to run (1-based). */
  turn: number;
  maxTurns: number;
  costUsd: number;
  maxCostUsd: number;
  /** Milliseconds until the deadline. */
  msLeft: number;
}

/** The first line of every state block; the loop and tests recognise the block by it. */
export const STATE_BLOCK_TAG = "<session_state>";

/**
 * The moving-state block: todos, notes, the pull request and the budget left. It changes every turn,
 * so the loop appends it to the newest user message only, after the last cache breakpoint, and never
 * keeps it in the history.
 */
export function renderState(state: SessionState, budget: BudgetView): string {
  const lines = [STATE_BLOCK_TAG, "Todos:"];
  if (state.todos.length === 0) lines.push("  (none yet; plan with TodoWrite)");
  for (const todo of state.todos) lines.push(`  [${STATUS_MARK[todo.status]}] ${todo.content}`);
  lines.push("Notes:");
  if (state.notes.length === 0) lines.push("  (none)");
  for (const note of state.notes) lines.push(`  - ${note}`);
  if (state.pullRequest !== undefined) {
    lines.push(`Pull request: ${state.pullRequest.url ?? "none"} (${state.pullRequest.message})`);
  }
  lines.push(`Budget: ${budgetLine(budget)}`, "</session_state>");
  return lines.join("\n");
}

const STATUS_MARK = { pending: " ", in_progress: ">", completed: "x" } as const;

function budgetLine({ turn, maxTurns, costUsd, maxCostUsd, msLeft }: BudgetView): string {
  const turnsLeft = Math.max(0, maxTurns - turn + 1);
  const costLeft = Math.max(0, maxCostUsd - costUsd);
  const time = msLeft > 366 * 86_400_000 ? "no time limit" : `${Math.max(0, Math.floor(msLeft / 60_000))} min left`;
  const hurry = turnsLeft <= 3 || costLeft < maxCostUsd * 0.1 || msLeft < 5 * 60_000;
  return (
    `turn ${turn} of ${maxTurns} (${turnsLeft} left including this one), ` +
    `$${costLeft.toFixed(2)} of $${maxCostUsd.toFixed(2)} left, ${time}.` +
    (hurry ? " Budget nearly spent: commit what works, open the pull request and call task_done." : "")
  );
}
