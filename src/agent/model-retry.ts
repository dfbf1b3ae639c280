import { TackleError } from "../errors/index.js";
import { sleep } from "../util/sleep.js";

/** Exponential from 0.5 s, capped at 8 s, with up to a quarter taken off at random so clients do not retry in step. */
export function modelRetryDelayMs(attempt: number): number {
  const base = Math.min(8_000, 500 * 2 ** attempt);
  return base * (0.75 + Math.random() * 0.25);
}

/** Waits before a model call's next attempt; a stopped job ends the wait as `aborted`. */
export async function waitToRetry(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, signal);
  if (signal.aborted) throw new TackleError("aborted", "the model call was aborted");
}
