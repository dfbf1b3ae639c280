import type { RepoRef } from "./trigger.js";

/**
 * A job's id: the issue or PR it works on, then what makes this run unique (the webhook's delivery
 * id, or the Action's run). The one place it is spelled, so the App, its `retry` command and the
 * Action name their jobs alike; it is also the tracking comment's marker, found again on a rerun.
 */
export function jobIdOf(target: { repo: RepoRef; number: number }, unique: string): string {
  return `${target.repo.owner}-${target.repo.name}-${target.number}-${unique}`;
}
