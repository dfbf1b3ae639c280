/**
 * Waits `ms`, or less when `signal` aborts first (it then resolves too: the caller checks the
 * signal). The abort listener is removed when the time is up, so a polling loop on a long-lived
 * signal does not pile listeners on it.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
