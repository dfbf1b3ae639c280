/**
 * What the dashboard reads of every job, wherever the job ran: its record (repository, issue,
 * trigger, status, timings, turns, tokens, cost), its transcript, and the artifacts it uploaded.
 * Two backends: Redis when REDIS_URL is set (workers on other machines write, the server reads), files
 * under TACKLE_HOME otherwise. Everything handed to a store is already redacted by the job that
 * wrote it, and the types say so: every free text a store takes is `Masked` (made only by the
 * redactor, src/util/redact.ts). A store masks nothing and a page shows what it holds.
 */
import { TackleError } from "../errors/index.js";
import type { Masked, MaskedBytes } from "../util/redact.js";

export type JobStatus = "queued" | "running" | "done" | "no_changes" | "failed" | "cancelled" | "budget_exhausted";

export const FINAL_STATUSES: readonly JobStatus[] = ["done", "no_changes", "failed", "cancelled", "budget_exhausted"];

export interface JobRecord {
  jobId: string;
  /** `owner/name`. */
  repo: string;
  number: number;
  isPullRequest: boolean;
  /** The trigger's kind (`issue_assigned`, `comment`, …). */
  trigger: string;
  actor: string;
  status: JobStatus;
  /** Why it ended, or why it waits again (a retry). */
  reason?: string;
  /** ISO times. */
  enqueuedAt: string;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  attempt?: number;
  turns?: number;
  subagentTurns?: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  costUsd?: number;
  pullRequestUrl?: string;
}

/**
 * A partial record: `jobId` and whatever changed. A field absent keeps its stored value. The reason is
 * free text (a model API's or GitHub's error, the agent's words): only masked text is recorded.
 */
export type JobRecordUpdate = Partial<Omit<JobRecord, "reason">> & { jobId: string; reason?: Masked };

export interface ArtifactMeta {
  /** Short and unique within the job (`a1`, `a2`, …): what ReportToIssue's `artifact_ids` name. */
  id: string;
  /** The file's base name. */
  name: string;
  description?: string;
  bytes: number;
  contentType: string;
  createdAt: string;
}

/** A job as the dashboard shows it. */
export interface StoredJob extends JobRecord {
  artifacts: ArtifactMeta[];
  /** The transcript was cut at the store's per-job cap, or dropped to make room for newer jobs. */
  transcriptCut: boolean;
}

export interface TranscriptChunk {
  lines: string[];
  /** Pass back to read what came after: a line index (Redis) or a byte offset (files). */
  cursor: number;
}

/** What the agent uploads: its name, description and bytes are its own, so each is masked. */
export interface NewArtifact {
  name: Masked;
  description?: Masked;
  contentType: string;
  content: MaskedBytes;
}

export interface JobStore {
  readonly kind: "redis" | "file";
  /** Creates the job's record or merges the update into it; a new record without a status is `queued`. */
  record(update: JobRecordUpdate): Promise<void>;
  get(jobId: string): Promise<StoredJob | null>;
  /** The newest jobs first (by enqueue time). */
  list(limit: number): Promise<JobRecord[]>;
  /**
   * Adds transcript lines (already redacted JSON). Past the per-job cap the rest is dropped and one
   * `{"type":"cut"}` line says so. The file store reads the transcript file the job writes itself:
   * there this only tells watchers.
   */
  appendTranscript(jobId: string, lines: readonly Masked[]): Promise<void>;
  /** The lines after `cursor` (0: from the start), at most `maxBytes` of them. */
  readTranscript(jobId: string, cursor: number, maxBytes?: number): Promise<TranscriptChunk>;
  /** Stores one artifact; TackleError("invalid_input") past the size caps, with the cap in its message. */
  putArtifact(jobId: string, artifact: NewArtifact): Promise<ArtifactMeta>;
  readArtifact(jobId: string, artifactId: string): Promise<{ meta: ArtifactMeta; content: Buffer } | null>;
  /** Calls `onChange` when the job's record or transcript changes (in any process, for Redis); returns the unsubscribe. */
  watch(jobId: string, onChange: () => void): () => void;
  close(): Promise<void>;
}

/** What a store keeps, per job and in all; README "Dashboard" states these numbers. */
export const JOB_STORE_LIMITS = {
  /** One artifact. */
  maxArtifactBytes: 5 * 1024 * 1024,
  /** All of one job's artifacts. */
  maxJobArtifactBytes: 20 * 1024 * 1024,
  /** One job's transcript in Redis; the file on disk is the agent's own and is not cut. */
  maxTranscriptBytes: 8 * 1024 * 1024,
  /** Transcripts and artifacts of all jobs in Redis: the oldest jobs' are dropped to make room. */
  maxTotalBytes: 256 * 1024 * 1024,
  /** Job records kept (the oldest are dropped). */
  maxJobs: 5_000,
  /** How long a job's record, transcript and artifacts are kept. */
  retentionMs: 7 * 24 * 60 * 60_000,
} as const;

export type JobStoreLimits = { -readonly [K in keyof typeof JOB_STORE_LIMITS]: number };

/** The line that ends a transcript cut at the cap. */
export const CUT_LINE = JSON.stringify({ type: "cut", reason: "the transcript passed the store's per-job cap; the rest was not kept" });

/** Artifact ids as the store makes them; anything else is refused before it reaches a key or a path. */
export const ARTIFACT_ID = /^a[1-9]\d{0,5}$/;

/** The refusals of `putArtifact`, the same from both stores. */
export function tooLarge(bytes: number, limits: Pick<JobStoreLimits, "maxArtifactBytes">): TackleError {
  return new TackleError(
    "invalid_input",
    `the file has ${bytes} bytes; an artifact may have at most ${limits.maxArtifactBytes} (${Math.round(limits.maxArtifactBytes / 1024 / 1024)} MB)`,
  );
}

export function jobFull(limits: Pick<JobStoreLimits, "maxJobArtifactBytes">): TackleError {
  return new TackleError(
    "invalid_input",
    `this job's artifacts would pass ${Math.round(limits.maxJobArtifactBytes / 1024 / 1024)} MB together; upload nothing more, or something smaller`,
  );
}
