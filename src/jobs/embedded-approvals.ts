import { randomUUID } from "node:crypto";
import { answeredOutcome, type ApprovalOutcome, type ApprovalRequest, type Approvals, type ApprovalReply, type WaitOptions } from "./approvals.js";

interface Question {
  id: string;
  request: ApprovalRequest;
  reply?: ApprovalReply;
  /** Drops the question at its deadline. */
  expiry: NodeJS.Timeout;
}

/** Largest delay setTimeout honours; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Approvals for a single process (no REDIS_URL): the webhook handler and the jobs share this object,
 * so a question lives in a map and an answer wakes its waiter directly.
 */
export function createEmbeddedApprovals(): Approvals {
  const questions = new Map<string, Question>();
  /** Waiters per lane, woken on any change to the lane's question. */
  const listeners = new Map<string, Set<() => void>>();
  let closed = false;

  const notify = (lane: string): void => {
    for (const listener of [...(listeners.get(lane) ?? [])]) listener();
  };

  const drop = (lane: string, id: string): void => {
    const question = questions.get(lane);
    if (question?.id !== id) return;
    clearTimeout(question.expiry);
    questions.delete(lane);
    notify(lane);
  };

  const listen = (lane: string, listener: () => void): (() => void) => {
    let set = listeners.get(lane);
    if (set === undefined) {
      set = new Set();
      listeners.set(lane, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) listeners.delete(lane);
    };
  };

  return {
    kind: "embedded",

    async ask(lane, request) {
      const previous = questions.get(lane);
      if (previous) drop(lane, previous.id);
      const id = randomUUID();
      const expiry = setTimeout(() => drop(lane, id), Math.min(MAX_TIMER_MS, Math.max(0, request.deadline - Date.now())));
      expiry.unref();
      questions.set(lane, { id, request, expiry });
      return id;
    },

    wait(lane, questionId, options: WaitOptions) {
      return new Promise<ApprovalOutcome>((resolve) => {
        const { signal } = options;
        let timer: NodeJS.Timeout | undefined;
        let unlisten = (): void => undefined;
        let done = false;
        const onAbort = (): void => finish({ approved: false, reason: "aborted" });
        const finish = (outcome: ApprovalOutcome): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          unlisten();
          signal?.removeEventListener("abort", onAbort);
          drop(lane, questionId);
          resolve(outcome);
        };
        const check = (): void => {
          const question = questions.get(lane);
          if (closed) finish({ approved: false, reason: "aborted" });
          else if (question?.id !== questionId) finish({ approved: false, reason: "timeout" });
          else if (question.reply) finish(answeredOutcome(question.reply));
        };
        if (signal?.aborted) return onAbort();
        check();
        if (done) return;
        unlisten = listen(lane, check);
        signal?.addEventListener("abort", onAbort, { once: true });
        const left = options.deadline - Date.now();
        if (left < MAX_TIMER_MS) timer = setTimeout(() => finish({ approved: false, reason: "timeout" }), Math.max(0, left));
      });
    },

    async answer(lane, reply) {
      const question = questions.get(lane);
      if (question === undefined || question.reply !== undefined || question.request.deadline <= Date.now()) return false;
      question.reply = reply;
      notify(lane);
      return true;
    },

    async clear(lane, questionId) {
      drop(lane, questionId);
    },

    async close() {
      closed = true;
      for (const lane of [...listeners.keys()]) notify(lane);
      for (const question of questions.values()) clearTimeout(question.expiry);
      questions.clear();
    },
  };
}
