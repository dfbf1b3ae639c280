import { TackleError, isTackleError } from "../errors/index.js";
import { createSpend } from "../agent/spend.js";
import type { HeldBudget } from "./reserve-job-budget.js";
import type { JobData } from "../jobs/job-data.js";
import { createRedactor } from "../util/redact.js";
import type { Workspace } from "../workspace/index.js";
import { sessionObservers } from "./job-metrics.js";
import { commentSink, createTracker, type Tracker } from "./tracker.js";
import { maskedError, openJob, readJobInputs, type JobContext } from "./job-context.js";
import type { JobOutcome, ProcessJobDeps } from "./job-deps.js";
import { emptyStats, endInError, withLoweredBudget, type FinalState } from "./job-ending.js";
import { admitJob, defaultCommandName } from "./admit-job.js";
import { disposeWorkspace, prepareWorkspace } from "./job-workspace.js";
import { runAndPublish } from "./run-and-publish.js";

/**
 * One job, start to end: acknowledge -> workspace -> agent -> finish. The workspace is started the
 * moment the job's target is known, while the acknowledgement and the reads of the issue, the config
 * and the instruction files run beside it: nothing on the way to the first model turn waits for a
 * comment to be written. Always ends with a final edit of the tracking comment; throws only what the
 * queue should retry.
 */
export async function processJob(
  data: JobData,
  deps: ProcessJobDeps,
  signal: AbortSignal,
  attempt: { attempt: number; maxAttempts: number } = { attempt: 1, maxAttempts: 1 },
): Promise<JobOutcome> {
  // Until the job's redactor exists (it needs the installation token), a failure is masked with the operator's secrets.
  const job = await openJob(data, deps, signal, attempt.attempt).catch((error: unknown) => {
    throw maskedError(error, createRedactor(deps.settings.secrets));
  });
  try {
    const outcome = await runJob(job, attempt);
    await job.recording?.ended(outcome);
    const artifacts = job.recording?.artifacts.list() ?? [];
    return artifacts.length === 0 ? outcome : { ...outcome, artifacts };
  } catch (error) {
    // Only what the queue retries is thrown here (or what broke before the job could end itself).
    await job.recording?.threw(error, isTackleError(error) ? error.retryable : true);
    // The queue keeps what is thrown (BullMQ's failedReason and stacktrace, shown by the queue view): masked.
    throw maskedError(error, job.redact);
  }
}

async function runJob(job: JobContext, attempt: { attempt: number; maxAttempts: number }): Promise<JobOutcome> {
  const { data, deps, signal, log, redact, startedAt } = job;
  log.info({ attempt: attempt.attempt, queuedMs: Date.now() - Date.parse(data.enqueuedAt) }, "job started");
  let tracker: Tracker | undefined;
  // The command the comments advertise: the repo's own phrase once its config is read.
  const trackerFor = (commandName: string | null) =>
    (tracker ??= createTracker({
      clock: deps.clock,
      logger: log,
      sink: commentSink(job.comment, { jobId: data.jobId, clock: deps.clock, commandName, jobUrl: job.recording?.jobUrl ?? undefined }),
      redact: job.redact,
    }));
  const finish = async (ending: FinalState, commandName: string | null = defaultCommandName(deps)): Promise<JobOutcome> => {
    // The tracker masks the comment's texts itself; the outcome's reason leaves through the queue's job
    // record, the log and the Action's summary, so it is masked here too.
    const state = { ...ending, reason: redact(ending.reason) };
    await trackerFor(commandName).flush(state);
    log.info({ status: state.phase, reason: state.reason }, "job finished");
    // The outcome leaves through the queue's job record and the Action's log, not only through GitHub.
    return { status: state.phase, reason: state.reason, pullRequestUrl: state.pullRequestUrl ?? null, stats: state.stats };
  };

  const stopWorkspace = new AbortController();
  const onAbort = () => stopWorkspace.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let workspaceStart: Promise<Workspace | null> | undefined;
  // The whole job's model spend, read to settle its daily budget on every way out, and counted for /metrics as it goes.
  const onCharge = deps.metrics ? sessionObservers(deps.metrics, `${data.repo.owner}/${data.repo.name}`).onCharge : undefined;
  const priceFor = deps.model(deps.settings.defaultModel).price;
  const spend = createSpend({ ...(onCharge ? { onCharge } : {}), ...(priceFor ? { priceFor } : {}) });
  let budget: HeldBudget | undefined;
  try {
    const inputs = readJobInputs(job);
    workspaceStart = inputs.target.then(async (target) => {
      if (!target.ok) return null;
      const preparing = deps.clock();
      const workspace = await prepareWorkspace(job, target, await inputs.defaultBranch, stopWorkspace.signal);
      // Where the time to the first model turn goes: the wait for the target, then the workspace step.
      log.info({ sinceStartMs: preparing - startedAt, workspaceMs: deps.clock() - preparing }, "workspace ready");
      return workspace;
    });
    // Settled here so an early return below never leaves an unhandled rejection behind.
    workspaceStart.catch(() => undefined);

    const admitted = await admitJob(job, inputs);
    if (!admitted.ok) {
      stopWorkspace.abort(new TackleError("aborted", "the job ended before its workspace was needed"));
      await disposeWorkspace(workspaceStart, log);
      if (admitted.reply) await job.github.createComment(job.repo, data.number, admitted.reply);
      return await finish({ ...admitted.ending, stats: emptyStats(deps.clock() - startedAt) }, admitted.commandName);
    }
    const { commandName } = admitted;
    budget = admitted.budget;
    const tracking = trackerFor(commandName);
    tracking.update({ phase: "working", step: "preparing the workspace", todos: [], startedAt, unsandboxed: deps.settings.sandbox === "off" });
    const workspace = await workspaceStart;
    if (!workspace) throw new TackleError("workspace", "the workspace was not prepared");
    // A throw here is caught below, which puts the workspace away.
    const ending = withLoweredBudget(await runAndPublish(job, admitted, workspace, tracking, attempt, spend), admitted.budget);
    // Settled before the final edit: a job triggered once this one reads as finished sees its cost.
    await admitted.budget.settle(spend.costUsd);
    // The checkout is put away while the final edit waits its turn in GitHub's write spacing.
    const [outcome] = await Promise.all([finish(ending, commandName), disposeWorkspace(workspaceStart, log)]);
    return outcome;
  } catch (error) {
    if (workspaceStart) await disposeWorkspace(workspaceStart, log);
    return await endInError(job, trackerFor(defaultCommandName(deps)), error, attempt);
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Every other way out (a throw, a retry, a stop) gives the hold back too; settling twice counts once.
    await budget?.settle(spend.costUsd);
  }
}
