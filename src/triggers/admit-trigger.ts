import { defaultRepoConfig, REPO_CONFIG_PATH, type RepoConfig } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import { createAccessCache, createTrustCheck, freezeThread, type GitHubClient, type TrustCheck } from "../github/index.js";
import type { IssueThread, JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import { gateTrigger } from "./gate.js";
import { isTriggerEnabled } from "./is-trigger-enabled.js";
import { jobIdOf } from "./job-id.js";
import { parseTrigger } from "./parse-trigger.js";
import { readTriggerConfig } from "./read-trigger-config.js";
import { replyToTrigger } from "./reply-to-trigger.js";
import { isTrigger, jobTriggerOf, type CommandTrigger, type ParseResult, type RepoRef, type TaskTrigger } from "./trigger.js";

export interface AdmitTriggerOptions {
  /** The event's name (`issues`, `issue_comment`, …) and its raw payload; nothing later reads the payload. */
  event: string;
  payload: unknown;
  /** X-GitHub-Delivery, or the Action's synthetic one. */
  deliveryId: string;
  /** The bot user (`tackle[bot]`, `github-actions[bot]`): its own events never trigger. */
  botLogin: string;
  /** Mention and command name when the repo config names no `trigger.phrase`. */
  botName: string;
  /**
   * The client for the event's repository, asked for only once the event may be a trigger (so an
   * Action listening to other events needs no token for them). null: the event cannot be served.
   */
  github(source: { repo: RepoRef; installationId?: number | undefined }, log: Logger): Promise<GitHubClient | null>;
  /** What makes the job's id unique beside its issue. @defaultValue the delivery id */
  jobKey?: string;
  logger: Logger;
}

interface Admitted {
  github: GitHubClient;
  config: RepoConfig;
  /** `/<commandName> stop`: the repo's `trigger.phrase`, else the bot name. */
  commandName: string;
  /** Bound to the delivery id and event. */
  log: Logger;
}

/** An accepted command; the caller acts on it (the App runs it, the Action explains it cannot). */
export interface CommandAdmission extends Admitted {
  status: "command";
  trigger: CommandTrigger;
}

/** An accepted task, its job's data ready (without the frozen thread: see `freeze`). */
export interface TaskAdmission extends Admitted {
  status: "task";
  trigger: TaskTrigger;
  data: JobData;
  /**
   * The thread as the trigger found it, for the job; left to the caller to time (the App does it
   * after 👀). Undefined when GitHub failed us: the job then reads the thread live, sanitized the same way.
   */
  freeze(): Promise<IssueThread | undefined>;
}

export type Admission =
  /** Not for Tackle, turned off, or unreadable; `reason` says which. Nothing was posted. */
  | { status: "ignored"; reason: string }
  /** The gate said no; its one reply, if any, has been posted. */
  | { status: "refused"; reason: string }
  | CommandAdmission
  | TaskAdmission;

/**
 * Admits one event, the same way for the App and the Action: parse with the default settings; read
 * the repo config only for events that are (or, with the repo's own label or phrase, could be)
 * triggers; parse again with the repo's settings; check that the trigger is turned on; gate the actor
 * (replying once when refused); then hand back the command, or the task with its job's data.
 */
export async function admitTrigger(options: AdmitTriggerOptions): Promise<Admission> {
  const log = options.logger.child({ deliveryId: options.deliveryId, event: options.event });
  const parse = (settings: RepoConfig["trigger"]): ParseResult =>
    parseTrigger(options.event, options.payload, {
      botLogin: options.botLogin,
      botName: settings.phrase ?? options.botName,
      triggerLabel: settings.label,
      deliveryId: options.deliveryId,
    });
  // Most events are not for Tackle whatever the repo says; only the others cost a config read.
  const first = parse(defaultRepoConfig().trigger);
  const source = isTrigger(first) ? first : first.kind === "ignored" ? first.dependsOnRepoSettings : undefined;
  if (source === undefined) return ignored(log, `webhook ${first.kind}`, "reason" in first ? first.reason : first.kind);
  const github = await options.github(source, log);
  if (github === null) return { status: "ignored", reason: "no GitHub client for this event" };

  // The permission check and the config read are independent: start both, so 👀 waits for one
  // round trip rather than two.
  // One permission cache for the admission: the gate and the trust marks of the frozen thread share it.
  const accessOf = createAccessCache(github, source.repo);
  if (isTrigger(first) && first.actor.type === "User") void accessOf(first.actor.login);
  const config = await readTriggerConfig(github, source.repo, isTrigger(first), log);
  if (config === null) return { status: "ignored", reason: `could not read ${REPO_CONFIG_PATH}` };
  const trigger = parse(config.trigger);
  if (!isTrigger(trigger)) return ignored(log, `webhook ${trigger.kind}`, trigger.reason);
  if (!isTriggerEnabled(trigger, config.trigger)) {
    log.info({ kind: trigger.kind }, `trigger turned off in ${REPO_CONFIG_PATH}`);
    return { status: "ignored", reason: `the ${trigger.kind} trigger is turned off in ${REPO_CONFIG_PATH}` };
  }

  const allowedBots = config.allowed_bots;
  const gate = await gateTrigger(trigger, { accessOf, allowedBots, botLogin: options.botLogin, logger: log });
  if (!gate.allowed) {
    if (gate.reply) await replyToTrigger(github, trigger, gate.reply, log);
    return { status: "refused", reason: gate.reason };
  }
  const admitted: Admitted = { github, config, commandName: config.trigger.phrase ?? options.botName, log };
  if (trigger.kind === "command") return { status: "command", trigger, ...admitted };
  const data: JobData = {
    jobId: jobIdOf(trigger, options.jobKey ?? trigger.deliveryId),
    deliveryId: trigger.deliveryId,
    ...(source.installationId === undefined ? {} : { installationId: source.installationId }),
    repo: trigger.repo,
    number: trigger.number,
    isPullRequest: trigger.isPullRequest,
    trigger: jobTriggerOf(trigger),
    enqueuedAt: new Date().toISOString(),
  };
  return { status: "task", trigger, data, freeze: () => freezeFor(github, trigger, createTrustCheck(accessOf, allowedBots), log), ...admitted };
}

function ignored(log: Logger, message: string, reason: string): Admission {
  log.debug({ reason }, message);
  return { status: "ignored", reason };
}

async function freezeFor(github: GitHubClient, trigger: TaskTrigger, isTrusted: TrustCheck, log: Logger): Promise<IssueThread | undefined> {
  try {
    return await freezeThread({
      github,
      repo: trigger.repo,
      number: trigger.number,
      isTrusted,
    });
  } catch (error) {
    log.warn({ err: errorMessage(error) }, "could not freeze the thread; the job will read it live");
    return undefined;
  }
}
