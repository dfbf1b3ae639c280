import type { ApplicationFunction } from "probot";
import { errorMessage, isTackleError } from "../errors/index.js";
import { redactingGitHubClient, type GitHubClient } from "../github/index.js";
import type { AckClaims } from "../jobs/ack-claims.js";
import type { Approvals } from "../jobs/approvals.js";
import { laneKey, type IssueThread, type JobData } from "../jobs/job-data.js";
import type { EnqueueOutcome, Queue } from "../jobs/queue.js";
import type { Logger } from "../logging/logger.js";
import { redactKnownTokens, type Redactor } from "../util/redact.js";
import { reactionTarget } from "../worker/index.js";
import { renderTrackingComment } from "../worker/index.js";
import { admitTrigger, helpText, jobIdOf, replyToTrigger, type CommandAdmission, type CommandTrigger } from "../triggers/index.js";
import { sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";
import { code, md } from "../util/surface-markdown.js";

export interface BotIdentity {
  /** The bot user, `<slug>[bot]`. */
  botLogin: string;
  /** Mention and command name: `@tackle`, `/tackle`. */
  botName: string;
}

const EVENTS = ["issues", "issue_comment", "pull_request_review", "pull_request_review_comment"] as const;

/**
 * The webhook side of the App, wiring only: parse once, gate, enqueue. Jobs run elsewhere (the
 * embedded queue's processor or a worker).
 */
export function createWebhookApp(options: {
  identity: BotIdentity;
  queue: Queue;
  github: (installationId: number) => Promise<GitHubClient>;
  logger: Logger;
  /** Who posts each job's tracking comment: this handler or the job (shared with the jobs' processes). */
  claims: AckClaims;
  /** Where `/tackle approve` / `/tackle deny` answer the jobs' policy questions. @defaultValue none: nothing is ever pending */
  approvals?: Approvals;
  /** Masks what this side posts (replies, the queued comment), through a redacting client. @defaultValue redactKnownTokens */
  redact?: Redactor;
  /** Told how long each 👀 took from the delivery's arrival (`/metrics`). @defaultValue none */
  metrics?: { acknowledged(seconds: number): void };
}): ApplicationFunction {
  return (app) => {
    app.on([...EVENTS], async (context) => {
      const received = performance.now();
      const acknowledged = () => options.metrics?.acknowledged((performance.now() - received) / 1000);
      const admission = await admitTrigger({
        event: context.name,
        payload: context.payload,
        deliveryId: context.id,
        botLogin: options.identity.botLogin,
        botName: options.identity.botName,
        logger: options.logger,
        github: async (source, log) => {
          if (source.installationId === undefined) {
            log.warn("webhook without an installation id; ignored");
            return null;
          }
          return redactingGitHubClient(await options.github(source.installationId), options.redact ?? redactKnownTokens);
        },
      });
      switch (admission.status) {
        case "ignored":
        case "refused":
          return;
        case "command":
          await handleCommand(admission, { ...options, identity: { ...options.identity, botName: admission.commandName }, acknowledged });
          return;
        case "task":
          await acknowledgeAndEnqueue(options.queue, options.claims, admission.github, admission.data, admission.log, acknowledged, admission.freeze);
          return;
      }
    });
  };
}

/**
 * Enqueue first, write to GitHub after: a Redis outage answers 503 before anything is posted, and a
 * backlog of throttled writes can never hold the enqueue past the webhook's time limit. 👀 is sent
 * at once without waiting for its turn in the write throttle; the tracking comment (with the queue
 * position) is posted by whoever claims the job first, this handler or the job itself (AckClaims),
 * so there is exactly one.
 */
async function acknowledgeAndEnqueue(
  queue: Queue,
  claims: AckClaims,
  github: GitHubClient,
  data: JobData,
  log: Logger,
  /** Called once 👀 is on the trigger. */
  acknowledged: () => void,
  /** The thread frozen for the job, after 👀 so it is not kept waiting. @defaultValue none: the job reads it live */
  freeze?: () => Promise<IssueThread | undefined>,
): Promise<void> {
  const eyes = github.addReaction(data.repo, reactionTarget(data), "eyes").then(acknowledged, (error: unknown) => {
    log.warn({ err: errorMessage(error) }, "could not add the 👀 reaction");
  });
  const thread = await freeze?.();
  const outcome = await enqueueOr503(queue, { ...data, ...(thread ? { thread } : {}) });
  log.info({ outcome }, "trigger accepted");
  // The job is safe in the queue: answer the webhook now and let the comment wait its turn in the
  // write throttle (the job waits for it through the claim, or posts its own).
  void postQueuedComment(claims, github, data, outcome, log).finally(() => eyes);
}

async function postQueuedComment(claims: AckClaims, github: GitHubClient, data: JobData, outcome: EnqueueOutcome, log: Logger) {
  if (outcome.status !== "queued" || !(await claims.claim(data.jobId).catch(() => false))) return;
  const body = renderTrackingComment({ phase: "queued", position: outcome.position }, data.jobId);
  const comment = await github.createComment(data.repo, data.number, body).catch((error: unknown) => {
    log.warn({ err: errorMessage(error) }, "could not post the tracking comment");
    return null;
  });
  // When posting failed the claim is given up, so a job waiting for the comment posts its own.
  await (comment ? claims.setComment(data.jobId, comment.id) : claims.release(data.jobId)).catch(() => undefined);
}

/**
 * Redis down: answer 503 at once (Probot's middleware uses the error's `status`), so GitHub shows the
 * delivery as failed and it can be redelivered; nothing is queued offline.
 */
async function enqueueOr503(queue: Queue, data: JobData) {
  try {
    return await queue.enqueue(data);
  } catch (error) {
    if (isTackleError(error, "queue_unavailable")) throw Object.assign(error, { status: 503 });
    throw error;
  }
}

async function handleCommand(
  { trigger, github, log }: CommandAdmission,
  options: { identity: BotIdentity; queue: Queue; claims: AckClaims; approvals?: Approvals; acknowledged: () => void },
): Promise<void> {
  switch (trigger.command) {
    case "retry": {
      await acknowledgeAndEnqueue(
        options.queue,
        options.claims,
        github,
        {
          jobId: jobIdOf(trigger, trigger.deliveryId),
          deliveryId: trigger.deliveryId,
          ...(trigger.installationId === undefined ? {} : { installationId: trigger.installationId }),
          repo: trigger.repo,
          number: trigger.number,
          isPullRequest: trigger.isPullRequest,
          trigger: {
            kind: "retry",
            actor: trigger.actor.login,
            commentId: trigger.commentId,
            commentKind: trigger.commentKind,
          },
          enqueuedAt: new Date().toISOString(),
        },
        log,
        options.acknowledged,
      );
      return;
    }
    case "stop": {
      const stopped = await options.queue.cancel(trigger.repo, trigger.number);
      if (!stopped) await replyToTrigger(github, trigger, md`There is no running Tackle job here to stop.`, log);
      return;
    }
    case "approve":
    case "deny":
      await answerQuestion(trigger, trigger.command === "approve", github, options, log);
      return;
    case "help":
    case "unknown":
      await replyToTrigger(github, trigger, helpText(options.identity.botName), log);
      return;
  }
}

/**
 * `/tackle approve` or `/tackle deny [reason]`: answers the policy question the issue's job is waiting
 * on, in whichever process it runs. The gate has already checked that the actor has write access.
 */
/** Past this a deny reason is cut (it is a sentence for the model, not a document). */
const MAX_DENY_REASON_CHARS = 4_000;

async function answerQuestion(
  trigger: CommandTrigger,
  approved: boolean,
  github: GitHubClient,
  options: { identity: BotIdentity; approvals?: Approvals },
  log: Logger,
): Promise<void> {
  let answered = false;
  if (options.approvals) {
    // The reason reaches the model: what a reader of the comment does not see (comments, hidden elements,
    // invisible characters, often in text the writer quoted) does not, as for every thread text.
    const reason = sanitizeUntrustedText(trigger.args, { maxLength: MAX_DENY_REASON_CHARS }).trim();
    const answer = { approved, by: trigger.actor.login, ...(reason === "" ? {} : { text: reason }) };
    try {
      answered = await options.approvals.answer(laneKey(trigger), answer);
    } catch (error) {
      // Like an enqueue with Redis down: 503, so the delivery can be redelivered.
      if (isTackleError(error, "queue_unavailable")) throw Object.assign(error, { status: 503 });
      throw error;
    }
  }
  if (!answered) {
    await replyToTrigger(github, trigger, md`There is no pending question for ${code(`/${options.identity.botName} ${trigger.command}`)} to answer here.`, log);
    return;
  }
  log.info({ actor: trigger.actor.login, approved }, "approval question answered");
  // A review has no reaction endpoint.
  if (trigger.commentKind === "review") return;
  const kind = trigger.commentKind === "issue" ? ("issue_comment" as const) : ("review_comment" as const);
  const target = { kind, id: trigger.commentId };
  await github.addReaction(trigger.repo, target, "+1").catch((error: unknown) => {
    log.warn({ err: errorMessage(error) }, "could not add the 👍 reaction");
  });
}
