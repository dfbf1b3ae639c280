/**
 * Pending policy questions, one per lane (issue or PR: its one running job asks), and their answers.
 * The job asks and waits where it runs; `/tackle approve` or `/tackle deny` answers where the
 * webhook arrives, which may be another process on another machine (hence a Redis backend).
 */
export interface ApprovalRequest {
  /** The job asking, for logs and for whoever inspects the store. */
  jobId: string;
  /** What is asked, in a line (tool and reason); never secret-bearing input. */
  summary: string;
  /** Epoch milliseconds (wall clock). The question is dropped then; a later answer finds nothing pending. */
  deadline: number;
}

export interface ApprovalReply {
  approved: boolean;
  /** Who answered (a GitHub login). */
  by: string;
  /** Text that came with the answer, e.g. the reason after `/tackle deny`. */
  text?: string;
}

export interface ApprovalOutcome {
  approved: boolean;
  by?: string;
  text?: string;
  /**
   * `answered`: someone approved or denied. `timeout`: the deadline passed (or the question was
   * dropped, e.g. replaced by a newer one of the lane), which counts as denied. `aborted`: the
   * waiter's signal fired (the job was stopped or is shutting down).
   */
  reason: "answered" | "timeout" | "aborted";
}

/** The outcome of a wait that found `reply`. */
export function answeredOutcome(reply: ApprovalReply): ApprovalOutcome {
  return {
    approved: reply.approved,
    by: reply.by,
    ...(reply.text === undefined || reply.text === "" ? {} : { text: reply.text }),
    reason: "answered",
  };
}

export interface WaitOptions {
  /** Epoch milliseconds (wall clock); normally the deadline given to `ask`. */
  deadline: number;
  signal?: AbortSignal;
}

export interface Approvals {
  readonly kind: "embedded" | "redis";
  /**
   * Records the lane's pending question and returns its id. A question the lane had before (left by
   * a job that died while waiting) is replaced: the job that runs the lane now is the one asking.
   */
  ask(lane: string, request: ApprovalRequest): Promise<string>;
  /**
   * Resolves when question `questionId` is answered, its deadline passes, or `signal` aborts; never
   * rejects for those. An answer given before `wait` is called counts. The question is dropped when
   * `wait` resolves, so a late `/tackle approve` finds nothing pending.
   */
  wait(lane: string, questionId: string, options: WaitOptions): Promise<ApprovalOutcome>;
  /**
   * Answers the lane's pending question: false when there is none (never asked, already answered,
   * timed out, or its job ended). Throws TackleError "queue_unavailable" when Redis cannot be reached.
   */
  answer(lane: string, reply: ApprovalReply): Promise<boolean>;
  /** Drops question `questionId` if it is still the lane's; for a job that ends before it waits. */
  clear(lane: string, questionId: string): Promise<void>;
  /** Ends pending waits as aborted and closes connections. */
  close(): Promise<void>;
}
