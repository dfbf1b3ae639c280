import type { PublishApproval } from "../ports.js";
import type { ApprovalGate } from "./approval-gate.js";

/**
 * The host's publish check asks through the job's approval gate (the same `/tackle approve` / `deny`,
 * one question at a time, the wait not counted against the job's time), about one exact commit: an
 * approval of an earlier, smaller commit does not cover a larger one. An answer is kept per commit,
 * so the end of the job does not ask again about a commit already answered.
 */
export function createPublishApproval(gate: ApprovalGate): PublishApproval {
  const answered = new Map<string, boolean>();
  return async ({ sha, reason }, signal) => {
    const known = answered.get(sha);
    if (known !== undefined) return known;
    const question = { tool: "create_pull_request", input: { commit: sha }, reason: `publishing ${sha.slice(0, 12)}: ${reason}` };
    const answer = await gate.ask(question, `publish:${sha}`, signal ?? new AbortController().signal);
    answered.set(sha, answer.approved);
    return answer.approved;
  };
}
