import type { ScriptedModel, ScriptedTurn } from "../../fakes/index.js";

interface RequestShape {
  messages: Array<{ role: string; content: unknown }>;
  tools?: unknown[];
}

/** Which turn of its own conversation a request is: the number of assistant messages before it. */
export function turnIndex(request: unknown): number {
  return (request as RequestShape).messages.filter((m) => m.role === "assistant").length;
}

/** The text of a request's first user message (the task), for assertions on what reached the model. */
export function firstUserText(request: unknown): string {
  const first = (request as RequestShape).messages[0];
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return (first.content as Array<{ type: string; text?: string }>).map((b) => b.text ?? "").join("\n");
}

/**
 * A script that serves `turns` to every job's conversation independently (several jobs may share one
 * fake model), optionally waiting on `hold` before answering a job's first turn.
 */
export function perJobScript(turns: ScriptedTurn[], options: { hold?: () => Promise<void> } = {}): ScriptedModel {
  return async (request) => {
    const index = turnIndex(request);
    if (index === 0 && options.hold) await options.hold();
    return turns[Math.min(index, turns.length - 1)]!;
  };
}

/** A promise you resolve from outside: a gate for scripted models. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => promise, open };
}
