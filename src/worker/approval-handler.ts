import type { ApprovalAnswer, ApprovalHandler, ApprovalQuestion } from "../agent/policy/index.js";
import { errorMessage } from "../errors/index.js";
import type { GitHubClient, RepoRef } from "../github/index.js";
import type { ApprovalOutcome, Approvals } from "../jobs/approvals.js";
import { laneKey } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import { cutMasked, type Redactor } from "../util/redact.js";
import { code, codeBlock, hiddenMarker, inert, joinMarkdown, md, mention, type SurfaceMarkdown } from "../util/surface-markdown.js";

export interface GitHubApprovalHandlerOptions {
  approvals: Approvals;
  /** The job's redacting client (redactingGitHubClient): it masks the question comment. */
  github: Pick<GitHubClient, "createComment" | "updateComment">;
  repo: RepoRef;
  /** The issue or PR the job works for; its lane holds the question. */
  number: number;
  jobId: string;
  /** How long a question waits for an answer (the repo's `approval_timeout_minutes`). */
  timeoutMs: number;
  /**
   * Masks the job's secrets in what goes to the approvals store (another way out: the dashboard),
   * and in the call's input before it is cut to size, so a cut cannot leave half a token unmasked.
   */
  redact: Redactor;
  logger: Logger;
  /** The command users type, as in `/tackle approve`. @defaultValue "tackle" */
  commandName?: string;
}

const MAX_INPUT_CHARS = 2_000;

/**
 * Policy questions of a GitHub job: the question is posted on the issue, and the job waits, keeping
 * its queue slot and its lane, for `/tackle approve` or `/tackle deny [reason]` (the webhook gate lets
 * only users with write access through) or the deadline, which counts as denied.
 *
 * A worker lost while waiting leaves its question in the store until the deadline; when the queue
 * reruns the job (BullMQ's stalled-job recovery), the new run asks again and replaces it. A job that
 * ends for good while waiting (stalled too often, or the server stopped without a worker) leaves its
 * tracking comment at "waiting for approval": `/tackle retry` enqueues a fresh job for the issue,
 * which works on the same branch and asks the question again when it gets there.
 */
export function createGitHubApprovalHandler(options: GitHubApprovalHandlerOptions): ApprovalHandler {
  const lane = laneKey({ repo: options.repo, number: options.number });
  const commandName = options.commandName ?? "tackle";
  const log = options.logger.child({ approval: lane });

  return {
    async request(question, signal) {
      const deadline = Date.now() + options.timeoutMs;
      const view: QuestionView = {
        jobId: options.jobId,
        question,
        input: describeInput(question.tool, question.input, options.redact),
        reason: options.redact(question.reason),
        deadline,
        timeoutMs: options.timeoutMs,
        commandName,
      };
      const id = await options.approvals.ask(lane, {
        jobId: options.jobId,
        summary: options.redact(`${question.tool}: ${question.reason}`),
        deadline,
      });
      try {
        const comment = await options.github.createComment(options.repo, options.number, renderApprovalQuestion(view));
        log.info({ tool: question.tool, reason: question.reason, deadline: new Date(deadline).toISOString() }, "waiting for approval");
        const outcome = await options.approvals.wait(lane, id, { deadline, signal });
        log.info({ outcome }, "approval question settled");
        await options.github
          .updateComment(options.repo, comment.id, renderApprovalQuestion({ ...view, outcome }))
          .catch((error: unknown) => log.warn({ err: errorMessage(error) }, "could not mark the question answered"));
        return toAnswer(outcome, question, options.timeoutMs);
      } finally {
        await options.approvals.clear(lane, id).catch((error: unknown) => {
          log.warn({ err: errorMessage(error) }, "could not drop the approval question; it lapses at its deadline");
        });
      }
    },
  };
}

/** What the model is told, as the tool call's result when it was not approved. */
function toAnswer(outcome: ApprovalOutcome, question: ApprovalQuestion, timeoutMs: number): ApprovalAnswer {
  const by = outcome.by === undefined ? {} : { by: outcome.by };
  if (outcome.approved) return { approved: true, ...by };
  const what = `this ${question.tool} call needed a maintainer's approval (${question.reason})`;
  const instead = "It was not run. Choose another approach, or explain in the PR what a maintainer should do.";
  switch (outcome.reason) {
    case "answered": {
      const reason = outcome.text ? ` with the reason: ${outcome.text}` : " without giving a reason";
      return { approved: false, ...by, message: `${what} and @${outcome.by ?? "a maintainer"} denied it${reason}. ${instead}` };
    }
    case "timeout":
      return {
        approved: false,
        unanswered: true,
        message: `${what}, but the request timed out: nobody answered within ${formatWait(timeoutMs)}, which counts as denied. ${instead}`,
      };
    case "aborted":
      return { approved: false, message: `${what}; the job was stopped while waiting for the answer, so it was not run.` };
  }
}

interface QuestionView {
  jobId: string;
  question: ApprovalQuestion;
  /** Already redacted. */
  input: string;
  /** The question's reason, already redacted. */
  reason: string;
  deadline: number;
  timeoutMs: number;
  commandName: string;
  outcome?: ApprovalOutcome;
}

/** The question comment, and its edit once settled; pure. The tool's name, its input and the reason are shown inert. */
export function renderApprovalQuestion(view: QuestionView): SurfaceMarkdown {
  const { question, commandName } = view;
  const command = (words: string) => code(`/${commandName} ${words}`);
  const lines = [
    hiddenMarker(`tackle:approval job=${view.jobId}`),
    md`🙋 **Tackle needs a maintainer's approval** to run ${code(question.tool)}: ${inert(view.reason)}.`,
    md``,
    codeBlock(view.input, question.tool === "Bash" ? "sh" : "json"),
    md``,
  ];
  if (view.outcome === undefined) {
    lines.push(
      md`Comment ${command("approve")} to let it run, or ${command("deny <reason>")} to refuse (the reason is passed on to the agent). Only users with write access can answer.`,
      md``,
      md`Without an answer by ${inert(new Date(view.deadline).toISOString())} (${inert(formatWait(view.timeoutMs))}), the request counts as denied. The job waits meanwhile.`,
      md``,
      md`<sub>If the job stops while waiting (for example its worker was lost), comment ${command("retry")} to start it again.</sub>`,
    );
  } else {
    lines.push(settledLine(view.outcome));
  }
  return joinMarkdown(lines);
}

function settledLine(outcome: ApprovalOutcome): SurfaceMarkdown {
  switch (outcome.reason) {
    case "answered":
      return outcome.approved ? md`✅ Approved by ${mention(outcome.by ?? "?")}.` : md`❌ Denied by ${mention(outcome.by ?? "?")}.`;
    case "timeout":
      return md`⌛ Nobody answered in time; the request counted as denied.`;
    case "aborted":
      return md`⏹️ The job stopped before an answer came.`;
  }
}

/** The part of the input a maintainer needs to judge the call: the command for Bash, else the JSON. */
function describeInput(tool: string, input: unknown, redact: Redactor): string {
  const command = tool === "Bash" && input !== null && typeof input === "object" ? (input as { command?: unknown }).command : undefined;
  const text = typeof command === "string" ? command : (JSON.stringify(input, null, 2) ?? "");
  return cutMasked(redact(text), MAX_INPUT_CHARS, "see the job's transcript for all of it");
}

function formatWait(ms: number): string {
  if (ms >= 60_000) {
    const minutes = Math.round(ms / 60_000);
    return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  }
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
