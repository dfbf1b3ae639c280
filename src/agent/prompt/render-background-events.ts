import { fenceUntrusted, sanitizeUntrusted } from "./fence-untrusted.js";

/**
 * What the job's background commands and Monitors printed or did since the last turn, for the next
 * user message: their output is data from the sandbox, fenced like any untrusted text.
 */
export function renderBackgroundEvents(events: readonly string[]): string | undefined {
  if (events.length === 0) return undefined;
  // Each event on its own: an unclosed `<!--` in one line must not hide the events after it.
  const lines = events.map((event) => sanitizeUntrusted(event).replace(/[\r\n]+/g, " "));
  return `Events from your background commands since your last turn:\n${fenceUntrusted("background_events", lines.join("\n"))}`;
}
