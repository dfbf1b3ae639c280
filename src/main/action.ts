// The GitHub Action (`action.yml` -> dist/action.js): one event, parsed, gated and worked inline in
// the CI job; no queue, no App. Wiring only.
import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { loadEnv, REPO_CONFIG_PATH, type TackleEnv } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import { tokenClient } from "../github/index.js";
import type { JobData } from "../jobs/job-data.js";
import { createLogger, type Logger } from "../logging/logger.js";
import { admitTrigger, helpText, replyToTrigger, type CommandTrigger, type TaskAdmission } from "../triggers/index.js";
import { processJob, type JobOutcome, type ProcessJobDeps } from "../worker/process-job.js";
import { createRepoCache, type SandboxMode } from "../workspace/index.js";
import { chooseActionSandbox } from "./action-sandbox.js";
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
  const botName = vars.TACKLE_BOT_NAME?.trim().replace(/^@/, "") || "tackle";
  let env: TackleEnv<"action"> | undefined;
  const admission = await admitTrigger({
    event: eventName,
    payload,
    deliveryId: `action-${runId}-${runAttempt}`,
    botLogin: ACTION_BOT_LOGIN,
    botName,
    jobKey: `run-${runId}-${runAttempt}`,
    logger,
    // Asked for only when the event may be a trigger: a workflow listening to more events than
    // Tackle needs must not fail on every one of them.
    github: async () => {
      env = loadEnv(effectiveEnv(vars), { mode: "action" });
      if (!env.githubToken) throw new Error("no GitHub token (the `github_token` input or GITHUB_TOKEN)");
      return tokenClient({ token: env.githubToken, apiUrl: env.githubApiUrl, logger });
    },
  });
  switch (admission.status) {
    case "ignored":
      console.log(`tackle: nothing to do: ${admission.reason}`);
      return 0;
    case "refused":
      console.log(`tackle: refused: ${admission.reason}`);
      return 0;
    case "command":
      await replyToTrigger(admission.github, admission.trigger, commandReply(admission.trigger, admission.commandName), admission.log);
      console.log(`tackle: answered /${admission.commandName} ${admission.trigger.word}`);
      return 0;
    case "task":
      break;
  }
  const { trigger, github } = admission;

  const sandbox = await chooseActionSandbox(vars, (line) => console.log(line));
  if (sandbox.mode === null) {
    await replyToTrigger(github, trigger, sandbox.reply, admission.log);
    await writeOutputs(vars, { status: "failed", pullRequestUrl: null });
    return 1;
  }
  const outcome = await runInline(admission, { env: env!, vars, logger, sandbox: sandbox.mode });
  console.log(`tackle: ${outcome.status}: ${outcome.reason}${outcome.pullRequestUrl ? ` (${outcome.pullRequestUrl})` : ""}`);
  await writeOutputs(vars, outcome);
  return outcome.status === "done" || outcome.status === "no_changes" ? 0 : 1;
}

async function runInline(
  admission: TaskAdmission,
  context: { env: TackleEnv<"action">; vars: Vars; logger: Logger; sandbox: SandboxMode },
): Promise<JobOutcome> {
  const { env, vars, logger } = context;
  const { github } = admission;
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
  const thread = await admission.freeze();
  const data: JobData = { ...admission.data, ...(thread ? { thread } : {}) };
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
