// The GitHub Action (`action.yml` -> dist/action.js): one event, parsed, gated and worked inline in
// the CI job; no queue, no App. Wiring only: the inputs, the token's access, the sandbox and the
// step's report each live in their own action-*.ts. Importing this module runs nothing: the bundle's
// entry (scripts/build.mjs) and `@github/local-action` call `run()`.
import { readFile } from "node:fs/promises";
import path from "node:path";
import * as core from "@actions/core";
import { loadBotName, loadEnv, missingModelSettings, type TackleEnv } from "../config/index.js";
import { errorMessage, TackleError } from "../errors/index.js";
import { tokenClient } from "../github/index.js";
import { createFileJobStore, createMemoryStore } from "../jobs/index.js";
import type { JobData } from "../jobs/job-data.js";
import { createWebFetchCache } from "../net/index.js";
import { environmentSecrets } from "../logging/environment-secrets.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { admitTrigger, replyToTrigger, type TaskAdmission } from "../triggers/index.js";
import { processJob, type JobOutcome, type ProcessJobDeps } from "../worker/index.js";
import { createRepoCache, type SandboxMode } from "../workspace/index.js";
import { actionCommandReply } from "./action-command-reply.js";
import { checkPushAccess, describeAccessProblem, learnTokenLogin, watchGitHubAccess, type WatchedGitHub } from "./action-github-access.js";
import { readActionInputs, type ActionInputs } from "./action-inputs.js";
import { actionLogDestination } from "./action-log.js";
import { ACTION_ARTIFACTS_DIR, fail, reportStep, type StepResult } from "./action-report.js";
import { setUpActionRipgrep } from "./action-ripgrep-setup.js";
import { chooseActionSandbox } from "./action-sandbox.js";
import { modelClientFor } from "./model-client-for.js";
import { createRedactor, type Redactor } from "../util/redact.js";
import { inert, md, type SurfaceMarkdown } from "../util/surface-markdown.js";
import { oneLogLine } from "../util/plain-text.js";

/**
 * The user the workflow's GITHUB_TOKEN acts as: its own comments must never trigger a run. A personal
 * access token acts as its owner instead, learned at run time (see `tokenLogin` below).
 */
export const ACTION_BOT_LOGIN = "github-actions[bot]";

type Vars = Readonly<Record<string, string | undefined>>;

/** Runs the step: reads the event and the inputs, does what the event asks, and reports how it went. */
export async function run(vars: Vars = process.env): Promise<void> {
  try {
    await reportStep(await runAction(vars, readActionInputs()));
  } catch (error) {
    fail(`Tackle: ${errorMessage(error)}`);
  }
}

/** The inputs win over the plain variables: in a workflow they are what the user wrote. */
function effectiveEnv(vars: Vars, inputs: ActionInputs): Record<string, string | undefined> {
  return {
    ...vars,
    TACKLE_MODEL: inputs.model ?? vars.TACKLE_MODEL,
    ANTHROPIC_API_KEY: inputs.anthropicApiKey ?? vars.ANTHROPIC_API_KEY,
    INPUT_ANTHROPIC_API_KEY: undefined,
    INPUT_GITHUB_TOKEN: inputs.githubToken,
  };
}

async function runAction(vars: Vars, inputs: ActionInputs): Promise<StepResult> {
  const eventName = vars.GITHUB_EVENT_NAME;
  const eventPath = vars.GITHUB_EVENT_PATH;
  if (!eventName || !eventPath) {
    throw new TackleError(
      "env_invalid",
      "GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: Tackle runs as a step of a GitHub Actions workflow (see the README)",
    );
  }
  const payload: unknown = JSON.parse(await readFile(eventPath, "utf8"));
  const level = vars.LOG_LEVEL || (core.isDebug() ? "debug" : "info");
  const logger = createLogger({ ...effectiveEnv(vars, inputs), LOG_LEVEL: level } as NodeJS.ProcessEnv, actionLogDestination({ stacks: core.isDebug() }));
  // The step summary and the failure annotation show only masked text: the same list as the job's.
  const mask = createRedactor(environmentSecrets(effectiveEnv(vars, inputs)));
  const runId = vars.GITHUB_RUN_ID ?? String(Date.now());
  const runAttempt = vars.GITHUB_RUN_ATTEMPT ?? "1";
  // The same reading of TACKLE_BOT_NAME as loadEnv's, before the event is parsed: a name it refuses fails the step.
  const botName = loadBotName(vars) ?? "tackle";
  let env: TackleEnv<"action"> | undefined;
  let access: WatchedGitHub | undefined;
  // Whom `github_token` acts as, when it is not github-actions[bot]: asked beside the config read.
  let tokenLogin: Promise<string | undefined> = Promise.resolve(undefined);
  // Cancelling a workflow sends SIGINT, then SIGTERM; a token that turns out not to work stops the job too.
  const stop = new AbortController();
  const admission = await admitTrigger({
    event: eventName,
    payload,
    deliveryId: `action-${runId}-${runAttempt}`,
    botLogin: ACTION_BOT_LOGIN,
    botName,
    jobKey: `run-${runId}-${runAttempt}`,
    logger,
    // Asked for only when the event may be a trigger: a workflow listening to more events than
    // Tackle needs must not fail on every one of them. The model key is checked once a job is due.
    github: async () => {
      env = loadEnv(effectiveEnv(vars, inputs), { mode: "action", runsJobs: false });
      access = watchGitHubAccess(tokenClient({ token: env.githubToken!, apiUrl: env.githubApiUrl, logger }), () => stop.abort());
      tokenLogin = learnTokenLogin(env.githubApiUrl, env.githubToken!);
      return access.github;
    },
  });
  // A bad or under-scoped token shows as a refusal or an unreadable config; it is the workflow's fault.
  const misconfigured = (): StepResult | undefined => {
    const problem = access?.problem();
    return problem ? { kind: "failed", message: mask(describeAccessProblem(problem)) } : undefined;
  };
  switch (admission.status) {
    case "ignored":
      return misconfigured() ?? { kind: "quiet", line: `tackle: nothing to do: ${admission.reason}` };
    case "refused":
      return misconfigured() ?? { kind: "quiet", line: `tackle: refused: ${admission.reason}` };
  }
  // With a personal access token, what the Action posts comes back as that user's comments: the bot's own.
  const tokenUser = await tokenLogin;
  if (tokenUser !== undefined && tokenUser.toLowerCase() === admission.trigger.actor.login.toLowerCase()) {
    const line = `tackle: nothing to do: the bot's own event (${tokenUser} is the user the \`github_token\` input acts as)`;
    return misconfigured() ?? { kind: "quiet", line };
  }
  if (admission.status === "command") {
    const reply = actionCommandReply(admission.trigger.command, admission.commandName);
    await replyToTrigger(admission.github, admission.trigger, reply, admission.log);
    return misconfigured() ?? { kind: "quiet", line: `tackle: answered /${admission.commandName} ${admission.trigger.word}` };
  }
  return misconfigured() ?? runTask(admission, { env: env!, access: access!, inputs, vars, logger, stop, mask });
}

interface TaskContext {
  env: TackleEnv<"action">;
  access: WatchedGitHub;
  inputs: ActionInputs;
  vars: Vars;
  logger: Logger;
  /** Aborts the job: the workflow was cancelled, or the token was refused. */
  stop: AbortController;
  /** Masks what the step summary shows. */
  mask: Redactor;
}

/** Checks what the job needs before anything is paid for, then runs it in a log group. */
async function runTask(admission: TaskAdmission, context: TaskContext): Promise<StepResult> {
  const { env, access, inputs, mask } = context;
  const { trigger, github } = admission;
  const issue = `${trigger.repo.owner}/${trigger.repo.name}#${trigger.number}`;
  const refuse = async (message: string, reply: SurfaceMarkdown): Promise<StepResult> => {
    await replyToTrigger(github, trigger, reply, admission.log);
    return { kind: "failed", message: mask(message), issue };
  };
  if (env.provider === "anthropic" && !env.anthropicApiKey) {
    return refuse(
      "The Anthropic API key is missing: set `anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}` on the Tackle step and add that secret " +
        "(Settings → Secrets and variables → Actions). Workflows started from a fork get no secrets.",
      md`Tackle did not run: this workflow has no Anthropic API key. A maintainer can add the \`ANTHROPIC_API_KEY\` secret and pass it as the Tackle step's \`anthropic_api_key\` input. The workflow run's log says more.`,
    );
  }
  const missing = missingModelSettings(effectiveEnv(context.vars, inputs), "action");
  if (missing.length > 0) {
    return refuse(
      `TACKLE_PROVIDER=${env.provider} is not set up:\n${missing.map((problem) => `- ${problem}`).join("\n")}`,
      md`Tackle did not run: this workflow's model provider (${inert(env.provider)}) is not set up. The workflow run's log says more.`,
    );
  }
  for (const secret of environmentSecrets(effectiveEnv(context.vars, inputs))) core.setSecret(secret);
  const pushProblem = await checkPushAccess(env.gitUrl(trigger.repo.owner, trigger.repo.name), env.githubToken!);
  // A token GitHub rejects cannot post a reply either.
  if (pushProblem?.status === 401) return { kind: "failed", message: mask(describeAccessProblem(pushProblem)), issue };
  if (pushProblem) {
    return refuse(
      describeAccessProblem(pushProblem),
      md`Tackle did not run: this workflow's token cannot push to the repository. A maintainer can add \`contents: write\` to the workflow's \`permissions:\`. The workflow run's log says more.`,
    );
  }
  const sandbox = await chooseActionSandbox({
    allowUnsandboxed: inputs.allowUnsandboxed,
    githubHosted: context.vars.RUNNER_ENVIRONMENT === "github-hosted",
    log: { info: (line) => core.info(oneLogLine(line)), warning: (text) => core.warning(text) },
  });
  if (sandbox.mode === null) {
    await replyToTrigger(github, trigger, sandbox.reply, admission.log);
    return { kind: "failed", message: mask(sandbox.summary), issue, sandbox: sandbox.summary };
  }
  // Without ripgrep the job still runs: Grep and Glob answer the model that it is missing.
  await setUpActionRipgrep({
    githubHosted: context.vars.RUNNER_ENVIRONMENT === "github-hosted",
    log: { info: (line) => core.info(oneLogLine(line)), warning: (text) => core.warning(text) },
  });
  const outcome = await core.group(`Tackle: working on ${issue}`, () => runInline(admission, { ...context, sandbox: sandbox.mode }));
  const problem = access.problem();
  if (problem && outcome.status !== "done" && outcome.status !== "no_changes") {
    return { kind: "failed", message: mask(describeAccessProblem(problem)), issue, sandbox: sandbox.summary, outcome };
  }
  const warning = problem ? mask(describeAccessProblem(problem)) : undefined;
  return { kind: "job", outcome, issue, sandbox: sandbox.summary, ...(warning ? { warning } : {}) };
}

async function runInline(admission: TaskAdmission, context: TaskContext & { sandbox: SandboxMode }): Promise<JobOutcome> {
  const { env, vars, logger } = context;
  const { github } = admission;
  // TACKLE_HOME when set; otherwise the runner's per-job temp directory, cleaned after the job.
  const home = vars.TACKLE_HOME?.trim() ? env.home : vars.RUNNER_TEMP?.trim() ? path.join(path.resolve(vars.RUNNER_TEMP), "tackle") : env.home;
  const repoCache = createRepoCache({ home, logger });
  const deps: ProcessJobDeps = {
    github: async () => github,
    model: () => modelClientFor(env),
    workspaces: repoCache,
    clock: Date.now,
    logger,
    // No approvals store: nothing can answer a question while the step runs, so risky steps are denied.
    // Memory lasts this run (the runner's temp directory) unless REDIS_URL names a Redis that outlives it.
    memory: { store: createMemoryStore({ redisUrl: env.redisUrl, home, logger }), host: new URL(env.githubServerUrl).host },
    web: { allow: env.fetchAllow, cache: createWebFetchCache() },
    // The job's record stays in the runner's temp directory; its artifacts go where a later step can upload them.
    jobStore: createFileJobStore({ home, artifactDir: () => path.join(artifactsRoot(vars, home), ACTION_ARTIFACTS_DIR) }),
    settings: {
      home,
      defaultModel: env.model,
      allowedModels: env.allowedModels,
      // "off" only when the workflow set allow_unsandboxed; the tracking comment then says so.
      sandbox: context.sandbox,
      gitUrl: env.gitUrl,
      gitHost: new URL(env.githubServerUrl).host.replace(":", "_"),
      // The one list (environmentSecrets): the token, the model's credentials, every TACKLE_SECRET_*.
      secrets: environmentSecrets(effectiveEnv(vars, context.inputs)),
      operatorSecrets: env.operatorSecrets,
      // Inline in a workflow there are no commands: cancel the workflow run instead.
      commandName: null,
    },
  };
  const thread = await admission.freeze();
  const data: JobData = { ...admission.data, ...(thread ? { thread } : {}) };
  // Cancelling a workflow sends SIGINT, then SIGTERM: stop the agent and let the tracking comment say so.
  const abort = () => context.stop.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    return await processJob(data, deps, context.stop.signal);
  } finally {
    process.off("SIGINT", abort);
    process.off("SIGTERM", abort);
    await deps.memory?.store.close();
  }
}

/** RUNNER_TEMP on a runner; TACKLE_HOME elsewhere (a local try of the Action). */
function artifactsRoot(vars: Vars, home: string): string {
  return vars.RUNNER_TEMP?.trim() ? path.resolve(vars.RUNNER_TEMP) : home;
}
