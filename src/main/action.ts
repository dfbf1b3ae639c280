// The GitHub Action (`action.yml` -> dist/action.js): one event, parsed, gated and worked inline in
// the CI job; no queue, no App. Wiring only.
import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { defaultRepoConfig, loadEnv, REPO_CONFIG_PATH, type RepoConfig, type TackleEnv } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import { tokenClient, type GitHubClient } from "../github/index.js";
import type { JobData } from "../jobs/job-data.js";
import { createLogger, type Logger } from "../logging/logger.js";
import {
  gateTrigger,
  helpText,
  isTrigger,
  isTriggerEnabled,
  jobTriggerOf,
  parseTrigger,
  type CommandTrigger,
  type ParseResult,
  type TaskTrigger,
  type Trigger,
} from "../triggers/index.js";
import { createTrustCheck, freezeThread } from "../worker/issue-thread.js";
import { processJob, type JobOutcome, type ProcessJobDeps } from "../worker/process-job.js";
import { createRepoCache, type SandboxMode } from "../workspace/index.js";
import { chooseActionSandbox } from "./action-sandbox.js";
import { readTriggerConfig } from "./read-trigger-config.js";
import { anthropicClientFor } from "./anthropic-client-for.js";

/** The user the workflow's GITHUB_TOKEN acts as: its own comments must never trigger a run. */
export const ACTION_BOT_LOGIN = "github-actions[bot]";

type Vars = Readonly<Record<string, string | undefined>>;

/** An unset input reaches the action as "" (GitHub sets every declared input). */
function input(vars: Vars, name: string): string | undefined {
  const value = vars[`INPUT_${name.toUpperCase()}`]?.trim();
  return value ? value : undefined;
}

/** Inputs win over the plain variables: in a workflow they are what the user wrote. */
function effectiveEnv(vars: Vars): Record<string, string | undefined> {
  const model = input(vars, "model") ?? vars.TACKLE_MODEL;
  const apiKey = input(vars, "anthropic_api_key") ?? vars.ANTHROPIC_API_KEY;
  return { ...vars, TACKLE_MODEL: model, ANTHROPIC_API_KEY: apiKey };
}

export async function runAction(vars: Vars): Promise<number> {
  const logger = createLogger({ LOG_LEVEL: "info", ...vars } as NodeJS.ProcessEnv);
  const eventName = vars.GITHUB_EVENT_NAME;
  const eventPath = vars.GITHUB_EVENT_PATH;
  if (!eventName || !eventPath) {
    console.error("tackle: GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set; run this as a GitHub Action step");
    return 1;
  }
  const payload: unknown = JSON.parse(await readFile(eventPath, "utf8"));
  const runId = vars.GITHUB_RUN_ID ?? String(Date.now());
  const runAttempt = vars.GITHUB_RUN_ATTEMPT ?? "1";
  const deliveryId = `action-${runId}-${runAttempt}`;
  const botName = vars.TACKLE_BOT_NAME?.trim().replace(/^@/, "") || "tackle";
  const parse = (settings: RepoConfig["trigger"]): ParseResult =>
    parseTrigger(eventName, payload, { botLogin: ACTION_BOT_LOGIN, botName: settings.phrase ?? botName, triggerLabel: settings.label, deliveryId });

  // Decided before the environment is checked: a workflow listening to more events than Tackle
  // needs must not fail on every one of them.
  const first = parse(defaultRepoConfig().trigger);
  const settingsRepo = isTrigger(first) ? first.repo : first.kind === "ignored" ? first.dependsOnRepoSettings?.repo : undefined;
  if (settingsRepo === undefined) {
    console.log(`tackle: nothing to do: ${"reason" in first ? first.reason : first.kind}`);
    return 0;
  }

  const env = loadEnv(effectiveEnv(vars), { mode: "action" });
  const token = env.githubToken;
  if (!token) throw new Error("no GitHub token (the `github_token` input or GITHUB_TOKEN)");
  const github = tokenClient({ token, apiUrl: env.githubApiUrl, logger });
  const log = logger.child({ deliveryId, event: eventName });

  const config = await readTriggerConfig(github, settingsRepo, isTrigger(first), log);
  if (config === null) {
    console.log(`tackle: nothing to do: could not read ${REPO_CONFIG_PATH}`);
    return 0;
  }
  const trigger = parse(config.trigger);
  if (!isTrigger(trigger)) {
    console.log(`tackle: nothing to do: ${trigger.reason}`);
    return 0;
  }
  if (!isTriggerEnabled(trigger, config.trigger)) {
    console.log(`tackle: nothing to do: the ${trigger.kind} trigger is turned off in ${REPO_CONFIG_PATH}`);
    return 0;
  }
  const gate = await gateTrigger(trigger, {
    getPermission: (owner, repo, user) =>
      github
        .getPermission({ owner, name: repo }, user)
        .then((p) => (p.roleName === undefined ? { permission: p.permission } : { permission: p.permission, role_name: p.roleName })),
    allowedBots: config.allowed_bots,
    botLogin: ACTION_BOT_LOGIN,
    logger: log,
  });
  if (!gate.allowed) {
    if (gate.reply) await reply(github, trigger, gate.reply, log);
    console.log(`tackle: refused: ${gate.reason}`);
    return 0;
  }
  if (trigger.kind === "command") {
    await reply(github, trigger, commandReply(trigger, config.trigger.phrase ?? botName), log);
    console.log(`tackle: answered /${config.trigger.phrase ?? botName} ${trigger.word}`);
    return 0;
  }

  const sandbox = await chooseActionSandbox(vars, (line) => console.log(line));
  if (sandbox.mode === null) {
    await reply(github, trigger, sandbox.reply, log);
    await writeOutputs(vars, { status: "failed", pullRequestUrl: null });
    return 1;
  }
  const outcome = await runInline(trigger, { env, vars, github, config, runId, runAttempt, logger, sandbox: sandbox.mode });
  console.log(`tackle: ${outcome.status}: ${outcome.reason}${outcome.pullRequestUrl ? ` (${outcome.pullRequestUrl})` : ""}`);
  await writeOutputs(vars, outcome);
  return outcome.status === "done" || outcome.status === "no_changes" ? 0 : 1;
}

async function runInline(
  trigger: TaskTrigger,
  context: {
    env: TackleEnv<"action">;
    vars: Vars;
    github: GitHubClient;
    config: RepoConfig;
    runId: string;
    runAttempt: string;
    logger: Logger;
    sandbox: SandboxMode;
  },
): Promise<JobOutcome> {
  const { env, vars, github, logger } = context;
  // TACKLE_HOME when set; otherwise the runner's per-job temp directory, cleaned after the job.
  const home = vars.TACKLE_HOME?.trim() ? env.home : vars.RUNNER_TEMP?.trim() ? path.join(path.resolve(vars.RUNNER_TEMP), "tackle") : env.home;
  const repoCache = createRepoCache({ home, logger });
  const deps: ProcessJobDeps = {
    github: async () => github,
    model: () => anthropicClientFor(env),
    workspaces: repoCache,
    clock: Date.now,
    logger,
    // No approvals store: nothing can answer a question while the step runs, so risky steps are denied.
    settings: {
      home,
      defaultModel: env.model,
      allowedModels: env.allowedModels,
      // "off" only when the workflow set allow_unsandboxed; the tracking comment then says so.
      sandbox: context.sandbox,
      gitUrl: env.gitUrl,
      gitHost: new URL(env.githubServerUrl).host.replace(":", "_"),
      secrets: [env.anthropicApiKey, env.githubToken].filter((s): s is string => Boolean(s)),
      // Inline in a workflow there are no commands: cancel the workflow run instead.
      commandName: null,
    },
  };
  const thread = await freezeThread({
    github,
    repo: trigger.repo,
    number: trigger.number,
    isTrusted: createTrustCheck(github, trigger.repo, context.config.allowed_bots),
  }).catch((error: unknown) => {
    logger.warn({ err: errorMessage(error) }, "could not freeze the thread; the job will read it live");
    return undefined;
  });
  const data: JobData = {
    jobId: `${trigger.repo.owner}-${trigger.repo.name}-${trigger.number}-run-${context.runId}-${context.runAttempt}`,
    deliveryId: trigger.deliveryId,
    repo: trigger.repo,
    number: trigger.number,
    isPullRequest: trigger.isPullRequest,
    trigger: jobTriggerOf(trigger),
    enqueuedAt: new Date().toISOString(),
    ...(thread ? { thread } : {}),
  };
  // Cancelling a workflow sends SIGINT, then SIGTERM: stop the agent and let the tracking comment say so.
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    return await processJob(data, deps, controller.signal);
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
  }
}

/** Commands that act on a running job mean nothing here: each run is its own workflow job. */
function commandReply(trigger: CommandTrigger, botName: string): string {
  switch (trigger.command) {
    case "help":
    case "unknown":
      return helpText(botName);
    case "stop":
      return `\`/${botName} stop\` does nothing here: Tackle runs as a GitHub Action, inside the workflow run. Cancel that run from the Actions tab to stop it.`;
    case "retry":
      return `\`/${botName} retry\` does nothing here: Tackle runs as a GitHub Action. Re-run the workflow from the Actions tab, or mention @${botName} again with what to do.`;
    case "approve":
    case "deny":
      return `\`/${botName} ${trigger.command}\` does nothing here: Tackle runs as a GitHub Action and cannot wait for an answer, so it denies risky steps on its own. Mention @${botName} again with clearer instructions, or change \`${REPO_CONFIG_PATH}\`.`;
  }
}

async function reply(github: GitHubClient, trigger: Trigger, body: string, log: Logger): Promise<void> {
  try {
    await github.createComment(trigger.repo, trigger.number, body);
  } catch (error) {
    log.warn({ err: errorMessage(error) }, "could not post the reply");
  }
}

/** `steps.<id>.outputs.status` and `pull_request_url`, for later steps of the workflow. */
async function writeOutputs(vars: Vars, outcome: Pick<JobOutcome, "status" | "pullRequestUrl">): Promise<void> {
  const file = vars.GITHUB_OUTPUT;
  if (!file) return;
  await appendFile(file, `status=${outcome.status}\npull_request_url=${outcome.pullRequestUrl ?? ""}\n`);
}

runAction(process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`tackle: ${errorMessage(error)}`);
    process.exitCode = 1;
  },
);
