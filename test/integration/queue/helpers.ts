import { randomUUID } from "node:crypto";
import type { JobData } from "../../../src/jobs/index.js";

let sequence = 0;

/** A job on issue `number` of o/r; each call is a new delivery unless `delivery` is given. */
export function jobOn(number: number, options: { delivery?: string; actor?: string; text?: string; owner?: string } = {}): JobData {
  sequence += 1;
  const deliveryId = options.delivery ?? `delivery-${sequence}-${randomUUID()}`;
  const owner = options.owner ?? "o";
  return {
    jobId: `${owner}-r-${number}-${deliveryId}-${sequence}`,
    deliveryId,
    installationId: 1,
    repo: { owner, name: "r" },
    number,
    isPullRequest: false,
    trigger: {
      kind: "issue_comment",
      actor: options.actor ?? "alice",
      commentId: 1000 + sequence,
      commentKind: "issue",
      ...(options.text === undefined ? {} : { instructions: options.text }),
    },
    enqueuedAt: new Date().toISOString(),
  };
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the signal's reason once it aborts; rejects with it, as a processor would. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
