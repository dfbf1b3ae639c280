import type { JobData } from "./job-data.js";

/** `trigger.instructions` may hold at most this many characters (the JobData schema's limit). */
export const MAX_INSTRUCTIONS = 65_536;

type Trigger = JobData["trigger"];

function section(trigger: Trigger): string {
  const text = trigger.instructions?.trim();
  return `--- @${trigger.actor} (${trigger.kind}) ---\n${text ? text : "(no instructions)"}`;
}

/** Cuts the middle, never silently: the reader sees how much went missing. */
function capInstructions(text: string): string {
  if (text.length <= MAX_INSTRUCTIONS) return text;
  const cut = text.length - MAX_INSTRUCTIONS + 80;
  const keep = Math.floor((text.length - cut) / 2);
  return `${text.slice(0, keep)}\n[… ${cut} characters cut to fit ${MAX_INSTRUCTIONS} …]\n${text.slice(text.length - keep)}`;
}

/**
 * Folds a newer trigger into the pending job of the same issue or PR. The pending job keeps its id,
 * delivery, comment and tracking comment; its instructions become one section per trigger, in
 * order, each headed by a separator line naming the actor; the newer trigger is listed in
 * `mergedTriggers` so the worker can acknowledge it too.
 */
export function mergeJobData(pending: JobData, next: JobData): JobData {
  const merged = pending.mergedTriggers ?? [];
  const head = merged.length === 0 ? section(pending.trigger) : (pending.trigger.instructions ?? "");
  const { instructions: _text, ...rest } = next.trigger;
  return {
    ...pending,
    trigger: { ...pending.trigger, instructions: capInstructions(`${head}\n\n${section(next.trigger)}`) },
    mergedTriggers: [...merged, { ...rest, deliveryId: next.deliveryId }],
    ...(pending.trackingCommentId === undefined && next.trackingCommentId !== undefined ? { trackingCommentId: next.trackingCommentId } : {}),
  };
}
