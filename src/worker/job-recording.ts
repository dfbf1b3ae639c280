import path from "node:path";
import type { ArtifactInfo, ArtifactPort } from "../agent/ports.js";
import { TackleError, errorMessage } from "../errors/index.js";
import { triggerFields, type JobData } from "../jobs/job-data.js";
import type { JobRecordUpdate, JobStatus, JobStore } from "../jobs/job-store.js";
import type { Logger } from "../logging/logger.js";
import { maskBytes, type Masked, type MaskedBytes, type Redactor } from "../util/redact.js";
import { safeArtifactName } from "../util/safe-artifact-name.js";
import type { JobStats } from "./tracking-comment.js";

/** What the job store learns of one run of a job, best effort: a store that fails never fails the job. */
export interface JobRecording {
  /** The dashboard's page of the job, when TACKLE_PUBLIC_URL is set. */
  readonly jobUrl: string | null;
  /** Each transcript line as the agent's writer put it on disk (masked there). */
  onTranscriptLine(line: Masked): void;
  artifacts: ArtifactPort;
  /** The run ended: its status, reason (masked) and figures. */
  ended(outcome: { status: JobStatus; reason: Masked; pullRequestUrl: string | null; stats: JobStats }): Promise<void>;
  /** The run threw: the queue retries it (queued again) or gives up (failed). */
  threw(error: unknown, willRetry: boolean): Promise<void>;
}

export interface JobRecordingOptions {
  store: JobStore;
  data: JobData;
  attempt: number;
  clock: () => number;
  log: Logger;
  /** The job's redactor: what is stored is masked here, once. */
  redact: Redactor;
  /** The dashboard's base URL (`https://host/dashboard`), or null. */
  dashboardUrl: string | null;
}

/** Lines sent to the store in one command at most. */
const MAX_BATCH_LINES = 200;

/** Records the run as running now, then its transcript, artifacts and end, in order. */
export function startJobRecording(options: JobRecordingOptions): JobRecording {
  const { store, data, log, redact } = options;
  const jobUrl = options.dashboardUrl === null ? null : `${options.dashboardUrl}/jobs/${encodeURIComponent(data.jobId)}`;
  const uploaded: ArtifactInfo[] = [];
  let chain: Promise<void> = Promise.resolve();
  let failed = false;
  const then = (what: string, step: () => Promise<unknown>): Promise<void> => {
    chain = chain.then(step).then(
      () => undefined,
      (error: unknown) => {
        // Once per job: a store that is down would otherwise log every line.
        if (!failed) log.warn({ err: errorMessage(error) }, `the job store could not ${what}; the dashboard will miss the rest of the transcript`);
        failed = true;
      },
    );
    return chain;
  };
  const record = (update: Omit<JobRecordUpdate, "jobId">): Promise<void> => then("record the job", () => store.record({ jobId: data.jobId, ...update }));

  const startedAt = options.clock();
  void record({
    ...triggerFields(data),
    status: "running",
    startedAt: new Date(startedAt).toISOString(),
    attempt: options.attempt,
  });

  const pending: Masked[] = [];
  let scheduled = false;
  const sendLines = (): void => {
    scheduled = false;
    while (pending.length > 0) {
      const batch = pending.splice(0, MAX_BATCH_LINES);
      // After a failure, lines are dropped rather than queued behind a store that is down: the job's end
      // would wait for each of them. The file on the worker keeps them all.
      void then("store transcript lines", async () => (failed ? undefined : store.appendTranscript(data.jobId, batch)));
    }
  };

  return {
    jobUrl,
    onTranscriptLine(line) {
      pending.push(line);
      if (scheduled) return;
      scheduled = true;
      setImmediate(sendLines);
    },
    artifacts: {
      async upload(file) {
        const content = maskArtifact(file.content, redact);
        const description = file.description === undefined ? undefined : redact(file.description);
        // The agent chose the name: masked like the content before it is made safe for paths and headers,
        // and masked again after (the store takes only masked text; a character made `_` can shape a token).
        const name = redact(safeArtifactName(redact(file.name)));
        const meta = await store.putArtifact(data.jobId, {
          name,
          content,
          contentType: contentTypeOf(name),
          ...(description === undefined ? {} : { description }),
        });
        const info: ArtifactInfo = {
          id: meta.id,
          name,
          bytes: meta.bytes,
          url: jobUrl === null ? null : `${jobUrl}/artifacts/${meta.id}`,
          ...(description === undefined ? {} : { description }),
        };
        uploaded.push(info);
        return info;
      },
      list: () => [...uploaded],
    },
    async ended(outcome) {
      sendLines();
      const s = outcome.stats;
      await record({
        status: outcome.status,
        reason: outcome.reason,
        endedAt: new Date(options.clock()).toISOString(),
        durationMs: s.durationMs,
        turns: s.turns,
        subagentTurns: s.subagentTurns ?? 0,
        inputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        cacheReadTokens: s.cacheReadTokens,
        costUsd: s.costUsd,
        ...(outcome.pullRequestUrl === null ? {} : { pullRequestUrl: outcome.pullRequestUrl }),
      });
    },
    async threw(error, willRetry) {
      sendLines();
      await record({
        status: willRetry ? "queued" : "failed",
        reason: redact(errorMessage(error)),
        ...(willRetry ? {} : { endedAt: new Date(options.clock()).toISOString(), durationMs: options.clock() - startedAt }),
      });
    },
  };
}

/** An artifact's content, masked (maskBytes); a binary file holding a secret is refused. */
export function maskArtifact(content: Buffer, redact: Redactor): MaskedBytes {
  const masked = maskBytes(content, redact);
  if (masked === null) {
    throw new TackleError("invalid_input", "the file holds a secret of this job or something shaped like a token; it was not uploaded");
  }
  return masked;
}

const CONTENT_TYPES: Record<string, string> = {
  ".txt": "text/plain",
  ".log": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".html": "text/html",
  ".htm": "text/html",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
};

/** Informational only: the dashboard serves every artifact as an attachment, never rendered. */
function contentTypeOf(name: string): string {
  return CONTENT_TYPES[path.extname(name).toLowerCase()] ?? "application/octet-stream";
}
