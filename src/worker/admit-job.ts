// The admission phase: whether the job runs at all, from what it read (the issue open, a usable config and model, a target, budget left).
import { REPO_CONFIG_PATH, resolveModel, type RepoConfig } from "../config/index.js";
import type { McpServerSpec } from "../net/index.js";
import { mcpServerSpecs } from "./mcp-server-specs.js";
import { reserveJobBudget, type HeldBudget } from "./reserve-job-budget.js";
import { code, md, type SurfaceMarkdown } from "../util/surface-markdown.js";
import { problemComment } from "./problem-comment.js";

import type { IssueDetails, JobContext, JobInputs } from "./job-context.js";
import type { ProcessJobDeps } from "./job-deps.js";
import type { FinalState } from "./job-ending.js";
import type { Target } from "./job-target.js";
/**
 * `config_invalid` is reported once as its own comment naming each bad key. A problem quotes the
 * repository's text (a key, a value): masked, then shown inert.
 */
export function configProblemComment(problems: string[], commandName: string, redact: (text: string) => string): SurfaceMarkdown {
  return problemComment(
    md`**Tackle could not use ${code(REPO_CONFIG_PATH)}** on the default branch, so this job did not run:`,
    problems,
    md`Fix the file and comment ${code(`/${commandName} retry`)}.`,
    redact,
  );
}

/** Problems with the repository's agent and skill files, reported like the config's. */
export function extensionProblemComment(problems: string[], commandName: string, redact: (text: string) => string): SurfaceMarkdown {
  return problemComment(
    md`**Tackle could not use the repository's agents or skills** (\`.tackle/agents/\`, \`.tackle/skills/\`, \`.claude/skills/\` on the default branch), so this job did not run:`,
    problems,
    md`Fix the files and comment ${code(`/${commandName} retry`)}.`,
    redact,
  );
}

export function defaultCommandName(deps: ProcessJobDeps): string | null {
  return deps.settings.commandName === undefined ? "tackle" : deps.settings.commandName;
}

export type Admission =
  | { ok: false; ending: Omit<FinalState, "stats">; reply?: SurfaceMarkdown; commandName: string | null }
  | {
      ok: true;
      issue: IssueDetails;
      config: RepoConfig;
      modelName: string;
      commandName: string | null;
      instructionFiles: Array<{ path: string; content: string }>;
      repoId: number;
      target: Extract<Target, { ok: true }>;
      /** The job's share of the daily budgets; `config.max_cost_usd` is already clamped to it. */
      budget: HeldBudget;
      /** The config's MCP servers, each secret they name checked against its scope. */
      mcpServers: McpServerSpec[];
    };

/**
 * Whether the job should run at all, from what it read: the issue still open, a usable config and
 * model, a target, and something left of the daily budgets (reserved last, once nothing else can refuse).
 */
export async function admitJob(job: JobContext, inputs: JobInputs): Promise<Admission> {
  const { deps, data } = job;
  const fallbackName = defaultCommandName(deps);
  const issue = await inputs.issue;
  if (issue.state !== "open") {
    return { ok: false, ending: { phase: "no_changes", reason: `#${data.number} was closed before the job ran; nothing to do` }, commandName: fallbackName };
  }
  const parsed = await inputs.config;
  if (!parsed.ok) {
    return {
      ok: false,
      ending: { phase: "failed", reason: `invalid ${REPO_CONFIG_PATH}: ${parsed.problems.length} problem(s), listed in the comment below` },
      reply: configProblemComment(parsed.problems, fallbackName ?? "tackle", job.redact),
      commandName: fallbackName,
    };
  }
  const config = parsed.config;
  if (parsed.warnings.length > 0) job.log.warn({ warnings: parsed.warnings }, `${REPO_CONFIG_PATH} has settings that may not do what was meant`);
  const commandName = fallbackName === null ? null : (config.trigger.phrase ?? fallbackName);
  const modelChoice = resolveModel(config.model, { model: deps.settings.defaultModel, allowedModels: deps.settings.allowedModels });
  if (!modelChoice.ok) {
    return {
      ok: false,
      ending: { phase: "failed", reason: modelChoice.problem },
      reply: configProblemComment([modelChoice.problem], commandName ?? "tackle", job.redact),
      commandName,
    };
  }
  // Before anything starts: a secret out of scope fails the job, so no MCP session ever opens with it.
  const mcp = mcpServerSpecs(config.mcp_servers, job.repo, deps.settings.operatorSecrets ?? new Map());
  if (!mcp.ok) {
    return {
      ok: false,
      ending: { phase: "failed", reason: `invalid ${REPO_CONFIG_PATH}: ${mcp.problems.length} problem(s), listed in the comment below` },
      reply: configProblemComment(mcp.problems, commandName ?? "tackle", job.redact),
      commandName,
    };
  }
  const target = await inputs.target;
  if (!target.ok) return { ok: false, ending: { phase: "failed", reason: target.reason }, reply: target.reply, commandName };
  const instructionFiles = await inputs.instructionFiles;
  const budget = await reserveJobBudget({
    budget: deps.budget,
    operatorCapUsd: deps.settings.dailyBudgetUsd ?? null,
    config,
    data,
    now: deps.clock(),
    commandName,
    log: job.log,
  });
  if (!budget.ok) return { ok: false, ending: { phase: "budget_exhausted", reason: budget.reason }, commandName };
  return {
    ok: true,
    issue,
    config: { ...config, max_cost_usd: budget.maxCostUsd },
    modelName: modelChoice.model,
    commandName,
    instructionFiles,
    repoId: await inputs.repoId,
    target,
    budget,
    mcpServers: mcp.specs,
  };
}
