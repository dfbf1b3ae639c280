// How a step ends, as GitHub shows it: one log line, the outputs (`status`, `pull_request_url`), the
// step summary, and for a failure the `::error::` annotation and exit code 1.
import * as core from "@actions/core";
import { errorMessage } from "../errors/index.js";
import { code, hostUrl, inert, joinMarkdown, link, md, tableRow, type SurfaceMarkdown } from "../util/surface-markdown.js";
import type { JobOutcome } from "../worker/index.js";
import type { Masked } from "../util/redact.js";
import { oneLogLine } from "../util/plain-text.js";

export type StepResult =
  /** Not a trigger, refused, or a command answered: one line, nothing else, exit 0. */
  | { kind: "quiet"; line: string }
  /** A job ran; it failed the step unless it ended done or no_changes. */
  | { kind: "job"; outcome: JobOutcome; issue: string; sandbox: string; warning?: Masked }
  /** The step could not do its work: misconfiguration, or a job that failed because of it. */
  | { kind: "failed"; message: Masked; issue?: string; sandbox?: string; outcome?: JobOutcome };

const succeeded = (outcome: JobOutcome) => outcome.status === "done" || outcome.status === "no_changes";

/** Everything GitHub shows of the step; never throws (a summary that cannot be written is a warning). */
export async function reportStep(result: StepResult): Promise<void> {
  if (result.kind === "quiet") {
    core.info(oneLogLine(result.line));
    return;
  }
  const outcome = result.outcome;
  // The reason carries the job's text (a refused file name from the agent's commit): one line, or the runner reads `::` commands in it.
  if (outcome) core.info(oneLogLine(`tackle: ${outcome.status}: ${outcome.reason}${outcome.pullRequestUrl ? ` (${outcome.pullRequestUrl})` : ""}`));
  // A misconfiguration fails the step even when it stopped the job (`cancelled`): the output says so too.
  core.setOutput("status", result.kind === "failed" ? "failed" : result.outcome.status);
  core.setOutput("pull_request_url", outcome?.pullRequestUrl ?? "");
  if (result.kind === "job" && result.warning) core.warning(result.warning);
  await writeStepSummary(renderStepSummary(result));
  const failure =
    result.kind === "failed" ? result.message : succeeded(result.outcome) ? undefined : `Tackle ${result.outcome.status}: ${result.outcome.reason}`;
  if (failure !== undefined) fail(failure);
}

/** `core.setFailed` sets the exit code too, but a stand-in toolkit (local-action's) may not: set it here as well. */
export function fail(message: string): void {
  core.setFailed(message);
  process.exitCode = 1;
}

async function writeStepSummary(markdown: SurfaceMarkdown): Promise<void> {
  // Outside a runner there is no summary file, and the toolkit would throw.
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  try {
    await core.summary.addRaw(markdown, true).write();
  } catch (error) {
    core.warning(`could not write the step summary: ${errorMessage(error)}`);
  } finally {
    core.summary.emptyBuffer();
  }
}

const TITLES: Record<JobOutcome["status"], SurfaceMarkdown> = {
  done: md`✅ Tackle finished`,
  no_changes: md`✅ Tackle finished: no changes needed`,
  failed: md`❌ Tackle failed`,
  cancelled: md`⏹️ Tackle was stopped`,
  budget_exhausted: md`⚠️ Tackle ran out of budget`,
};

/** The step summary in GitHub-flavoured Markdown; every text from the job or the step is `inert`, so it cannot add markup (HTML or Markdown). */
export function renderStepSummary(result: Exclude<StepResult, { kind: "quiet" }>): SurfaceMarkdown {
  const outcome = result.outcome;
  const title = result.kind === "failed" ? (outcome ? TITLES.failed : md`❌ Tackle could not run`) : TITLES[result.outcome.status];
  const lines = [md`## ${title}`, md``];
  if (result.kind === "failed") lines.push(inert(result.message), md``);
  if (result.kind === "job" && result.warning) lines.push(md`⚠️ ${inert(result.warning)}`, md``);
  const rows: Array<[SurfaceMarkdown, SurfaceMarkdown]> = [];
  if (result.issue) rows.push([md`Issue`, inert(result.issue)]);
  if (outcome) {
    rows.push([md`Outcome`, md`${code(outcome.status)}: ${inert(outcome.reason)}`]);
    rows.push([md`Pull request`, outcome.pullRequestUrl ? link(hostUrl(outcome.pullRequestUrl), outcome.pullRequestUrl) : md`none`]);
    const s = outcome.stats;
    rows.push([md`Turns`, md`${s.turns}`]);
    rows.push([md`Tokens`, md`${s.inputTokens + s.cacheReadTokens} input (${s.cacheReadTokens} from cache) · ${s.outputTokens} output`]);
    rows.push([md`Cost`, md`$${inert(s.costUsd.toFixed(4))}`]);
    rows.push([md`Duration`, inert(formatDuration(s.durationMs))]);
  }
  if (rows.length > 0) lines.push(md`| | |`, md`| --- | --- |`, ...rows.map((row) => tableRow(row)), md``);
  const artifacts = outcome?.artifacts ?? [];
  if (artifacts.length > 0) {
    lines.push(
      md`### Artifacts`,
      md``,
      md`In ${code(`$RUNNER_TEMP/${ACTION_ARTIFACTS_DIR}`)}: publish them with a later \`actions/upload-artifact\` step.`,
      md``,
    );
    for (const artifact of artifacts) {
      const description = artifact.description ? md`: ${inert(artifact.description)}` : md``;
      lines.push(md`- ${code(`${artifact.id}-${artifact.name}`)} (${artifact.bytes} bytes)${description}`);
    }
    lines.push(md``);
  }
  if (result.sandbox) lines.push(inert(result.sandbox), md``);
  return joinMarkdown(lines);
}

/** Where the Action puts the job's artifacts, under RUNNER_TEMP, each as `<id>-<name>`. */
export const ACTION_ARTIFACTS_DIR = "tackle-artifacts";

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}
