/** A policy question put to a maintainer (`/tackle approve` / `/tackle deny`, or a local prompt). */
export interface ApprovalQuestion {
  tool: string;
  input: unknown;
  reason: string;
  /** Where the call sits in the job's tree of conversations (`main/3/1`), for the transcript. */
  call?: string;
}

export interface ApprovalAnswer {
  approved: boolean;
  /** Who answered, e.g. a GitHub login. */
  by?: string;
  /** Passed on to the model, e.g. the maintainer's reason for denying. */
  message?: string;
  /** Nobody answered before the question's deadline: the job's gate asks no more (see createApprovalGate). */
  unanswered?: true;
}

export interface ApprovalHandler {
  request(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** For runs where nobody can answer: every question is denied with a message the model can act on. */
export const denyingApprovalHandler: ApprovalHandler = {
  request: async (question) => ({
    approved: false,
    message:
      `${question.tool} needs a maintainer's approval (${question.reason}), which is not available in this run; ` +
      "choose another approach or explain in the PR what a maintainer should do.",
  }),
};
