import type { ApplicationFunction } from "probot";
import { errorMessage, isTackleError } from "../errors/index.js";
import type { GitHubClient } from "../github/index.js";
import type { JobData } from "../jobs/job-data.js";
import type { Queue } from "../jobs/queue.js";
import type { Logger } from "../logging/logger.js";
import { reactionTarget } from "../worker/process-job.js";
import { renderTrackingComment } from "../worker/tracking-comment.js";
import { gateTrigger, helpText, jobTriggerOf, parseTrigger, type CommandTrigger, type TaskTrigger, type Trigger } from "../triggers/index.js";

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
  allowedBots?: string[];
  triggerLabel?: string;
}): ApplicationFunction {
  return (app) => {
    app.on([...EVENTS], async (context) => {
      const log = options.logger.child({ deliveryId: context.id, event: context.name });
      const trigger = parseTrigger(context.name, context.payload, {
        botLogin: options.identity.botLogin,
        botName: options.identity.botName,
        triggerLabel: options.triggerLabel ?? "tackle",
        deliveryId: context.id,
      });
      if (trigger.kind === "ignored" || trigger.kind === "invalid") {
        log.debug({ reason: trigger.reason }, `webhook ${trigger.kind}`);
        return;
      }
      if (trigger.installationId === undefined) {
        log.warn("webhook without an installation id; ignored");
        return;
      }
      const github = await options.github(trigger.installationId);
      const gate = await gateTrigger(trigger, {
        getPermission: async (owner, repo, user) => {
          const p = await github.getPermission({ owner, name: repo }, user);
          return p.roleName === undefined ? { permission: p.permission } : { permission: p.permission, role_name: p.roleName };
        },
        allowedBots: options.allowedBots ?? [],
        botLogin: options.identity.botLogin,
        logger: log,
      });
      if (!gate.allowed) {
        log.info({ actor: trigger.actor.login, reason: gate.reason }, "trigger refused");
        if (gate.reply) await reply(github, trigger, gate.reply, log);
        return;
      }
      if (trigger.kind === "command") {
        await handleCommand(trigger, github, options, log);
        return;
      }
      await acknowledgeAndEnqueue(options.queue, github, toJobData(trigger, trigger.installationId), log);
    });
  };
}

/**
 * 👀 and the tracking comment go out before the job is queued, so the user sees at once that Tackle
 * heard them; the job then edits that same comment (its id travels in the job data). A duplicate
 * delivery or a trigger merged into a pending job removes the comment it no longer needs.
 */
async function acknowledgeAndEnqueue(queue: Queue, github: GitHubClient, data: JobData, log: Logger): Promise<void> {
  await github.addReaction(data.repo, reactionTarget(data), "eyes").catch((error: unknown) => {
    log.warn({ err: errorMessage(error) }, "could not add the 👀 reaction");
  });
  const comment = await github
    .createComment(data.repo, data.number, renderTrackingComment({ phase: "queued", position: 1 }, data.jobId))
    .catch((error: unknown) => {
      log.warn({ err: errorMessage(error) }, "could not post the tracking comment");
      return null;
    });
  let outcome;
  try {
    outcome = await enqueueOr503(queue, comment ? { ...data, trackingCommentId: comment.id } : data);
  } catch (error) {
    if (comment) await github.deleteComment(data.repo, comment.id).catch(() => undefined);
    throw error;
  }
  log.info({ outcome }, "trigger accepted");
  if (!comment) return;
  if (outcome.status !== "queued") {
    await github.deleteComment(data.repo, comment.id).catch(() => undefined);
  } else if (outcome.position > 1) {
    await github
      .updateComment(data.repo, comment.id, renderTrackingComment({ phase: "queued", position: outcome.position }, data.jobId))
      .catch(() => undefined);
  }
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

function toJobData(trigger: TaskTrigger, installationId: number): JobData {
  return {
    jobId: `${trigger.repo.owner}-${trigger.repo.name}-${trigger.number}-${trigger.deliveryId}`,
    deliveryId: trigger.deliveryId,
    installationId,
    repo: trigger.repo,
    number: trigger.number,
    isPullRequest: trigger.isPullRequest,
    trigger: jobTriggerOf(trigger),
    enqueuedAt: new Date().toISOString(),
  };
}

async function reply(github: GitHubClient, trigger: Trigger, body: string, log: Logger): Promise<void> {
  try {
    await github.createComment(trigger.repo, trigger.number, body);
  } catch (error) {
    log.warn({ err: errorMessage(error) }, "could not post the reply");
  }
}

async function handleCommand(
  trigger: CommandTrigger,
  github: GitHubClient,
  options: { identity: BotIdentity; queue: Queue },
  log: Logger,
): Promise<void> {
  switch (trigger.command) {
    case "retry": {
      await acknowledgeAndEnqueue(options.queue, github, {
        jobId: `${trigger.repo.owner}-${trigger.repo.name}-${trigger.number}-${trigger.deliveryId}`,
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
      }, log);
      return;
    }
    case "stop": {
      const stopped = await options.queue.cancel(trigger.repo, trigger.number);
      if (!stopped) await reply(github, trigger, "There is no running Tackle job here to stop.", log);
      return;
    }
    case "approve":
    case "deny":
      await reply(github, trigger, `There is no pending question for \`/${options.identity.botName} ${trigger.command}\` to answer here.`, log);
      return;
    case "help":
    case "unknown":
      await reply(github, trigger, helpText(options.identity.botName), log);
      return;
  }
}

