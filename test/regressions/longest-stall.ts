/**
 * The longest time the event loop went without running a 5 ms timer while `run` ran: what a synchronous
 * stretch on the Tackle process (a matcher over a long path, a listing) holds every other job, webhook
 * and dashboard request for. For tests about time only, compared with an ordinary input's stall.
 */
export async function longestStall(run: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}
