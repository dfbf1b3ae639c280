import type { ApprovalAnswer, ApprovalHandler, ApprovalQuestion } from "./approval.js";

/**
 * The job's one way to a maintainer, shared by its agent and every subagent. Questions are asked one
 * at a time, in the order they come: the approvals store holds one pending question per issue, so a
 * second question asked beside the first would replace it (and the first would count as denied). A
 * question whose key was approved before is not asked again, also when it waited behind the approval.
 * Once a question went unanswered, no more are asked: the job's clock stands still while one waits, so
 * a model asking again after each timeout would hold the job for questions × approval_timeout_minutes.
 */
export interface ApprovalGate {
  ask(question: ApprovalQuestion, key: string | undefined, signal: AbortSignal): Promise<ApprovalAnswer>;
}

export function createApprovalGate(handler: ApprovalHandler): ApprovalGate {
  const approvedKeys = new Set<string>();
  let unanswered = false;
  let line: Promise<unknown> = Promise.resolve();
  return {
    ask(question, key, signal) {
      const turn = line.then(async (): Promise<ApprovalAnswer> => {
        if (key !== undefined && approvedKeys.has(key)) return { approved: true };
        if (signal.aborted) return { approved: false, message: `${question.tool} was not run: the job was stopped while it waited to ask.` };
        if (unanswered) {
          return {
            approved: false,
            unanswered: true,
            message: `${question.tool} needs a maintainer's approval (${question.reason}), but it was not asked: an earlier question went unanswered, so nobody is answering this job. Choose another approach, or explain in the PR what a maintainer should do.`,
          };
        }
        const answer = await handler.request(question, signal);
        if (answer.unanswered === true) unanswered = true;
        if (answer.approved && key !== undefined) approvedKeys.add(key);
        return answer;
      });
      line = turn.catch(() => undefined);
      return turn;
    },
  };
}
