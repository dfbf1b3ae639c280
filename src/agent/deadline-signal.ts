import { TackleError } from "../errors/index.js";

/** How often a deadline whose clock stood still (a maintainer's answer awaited) is looked at again. */
const RECHECK_MS = 1_000;

/**
 * The job's signal, aborted too once `clock` reaches `deadline`: what a tool call, or the policy step
 * before it, waits on ends with the job's time instead of holding the job past it (the loop only looks
 * at the deadline between turns). `clock` may stand still while a maintainer is asked (that wait does
 * not count), so the timer looks at it again when it fires. Call `stop` once the calls are done.
 */
export function deadlineSignal(parent: AbortSignal, deadline: number, clock: () => number): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const check = (first: boolean): void => {
    const left = deadline - clock();
    if (left <= 0) {
      controller.abort(new TackleError("aborted", "the job's time is up"));
      return;
    }
    // setTimeout fires at once past 2^31-1 ms; a deadline that far off is looked at again then.
    timer = setTimeout(() => check(false), Math.min(first ? left : Math.max(left, RECHECK_MS), 2 ** 31 - 1));
    timer.unref();
  };
  check(true);
  return { signal: AbortSignal.any([parent, controller.signal]), stop: () => clearTimeout(timer) };
}
