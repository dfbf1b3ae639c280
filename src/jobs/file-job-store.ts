import { EventEmitter } from "node:events";
import { chmod, open, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { transcriptDir, transcriptPath } from "../agent/transcript.js";
import { safeArtifactName } from "../util/safe-artifact-name.js";
import { withLock } from "../workspace/file-lock.js";
import {
  ARTIFACT_ID,
  CUT_LINE,
  JOB_STORE_LIMITS,
  jobFull,
  tooLarge,
  type ArtifactMeta,
  type JobRecord,
  type JobStore,
  type JobStoreLimits,
  type StoredJob,
} from "./job-store.js";

export interface FileJobStoreOptions {
  /** TACKLE_HOME: records in `<home>/jobs/`, transcripts where the agent writes them (`<home>/transcripts/`). */
  home: string;
  /**
   * Where a job's artifact files go. The Action puts them in `$RUNNER_TEMP/tackle-artifacts`, where a
   * later `actions/upload-artifact` step finds them. @defaultValue `<home>/artifacts/<job>`
   */
  artifactDir?: (jobId: string) => string;
  /** @defaultValue JOB_STORE_LIMITS */
  limits?: Partial<JobStoreLimits>;
  /** @defaultValue Date.now */
  clock?: () => number;
}

/** What `<home>/jobs/<job>.json` holds. */
interface JobFile {
  record: JobRecord;
  artifacts: ArtifactMeta[];
}

/**
 * The job store on one machine's disk, for a server that runs its jobs in-process (and the Action):
 * one JSON file per job, written under a lock and landed by rename; the transcript is the file the
 * agent appends to; artifacts are plain files. Changes are announced within the process only, where
 * the jobs run. Records and artifacts past `retentionMs` are pruned when a job is recorded.
 */
export function createFileJobStore(options: FileJobStoreOptions): JobStore {
  const limits: JobStoreLimits = { ...JOB_STORE_LIMITS, ...(options.limits ?? {}) };
  const clock = options.clock ?? Date.now;
  const jobsDir = path.join(options.home, "jobs");
  const safe = (jobId: string): string => jobId.replace(/[^A-Za-z0-9._-]/g, "_");
  const fileOf = (jobId: string): string => path.join(jobsDir, `${safe(jobId)}.json`);
  const transcriptOf = (jobId: string): string => transcriptPath(transcriptDir(options.home), jobId);
  const artifactDir = options.artifactDir ?? ((jobId: string) => path.join(options.home, "artifacts", safe(jobId)));
  const artifactPath = (jobId: string, meta: Pick<ArtifactMeta, "id" | "name">): string => path.join(artifactDir(jobId), `${meta.id}-${meta.name}`);
  const events = new EventEmitter();
  events.setMaxListeners(0);

  const update = <T>(jobId: string, change: (job: JobFile | null) => Promise<{ job: JobFile | null; result: T }>): Promise<T> =>
    withLock(`${fileOf(jobId)}.lock`, async () => {
      const { job, result } = await change(await readJob(fileOf(jobId)));
      if (job !== null) await writeJob(fileOf(jobId), job);
      return result;
    });

  const prune = async (keep: string): Promise<void> => {
    const cutoff = clock() - limits.retentionMs;
    const jobs = await readAll(jobsDir);
    jobs.sort((a, b) => Date.parse(b.record.enqueuedAt) - Date.parse(a.record.enqueuedAt));
    for (const [index, job] of jobs.entries()) {
      if (job.record.jobId === keep) continue;
      if (index < limits.maxJobs && Date.parse(job.record.enqueuedAt) >= cutoff) continue;
      await rm(fileOf(job.record.jobId), { force: true });
      for (const meta of job.artifacts) await rm(artifactPath(job.record.jobId, meta), { force: true });
    }
  };

  return {
    kind: "file",

    async record(change) {
      const created = await update(change.jobId, async (job) => {
        if (job === null) {
          const record = { enqueuedAt: new Date(clock()).toISOString(), status: "queued", ...change } as JobRecord;
          return { job: { record, artifacts: [] }, result: true };
        }
        return { job: { ...job, record: { ...job.record, ...change } }, result: false };
      });
      if (created) await prune(change.jobId);
      events.emit(change.jobId);
    },

    async get(jobId) {
      const job = await readJob(fileOf(jobId));
      if (job === null) return null;
      const transcriptCut = (await fileSize(transcriptOf(jobId))) > limits.maxTranscriptBytes;
      return { ...job.record, artifacts: job.artifacts, transcriptCut } satisfies StoredJob;
    },

    async list(limit) {
      const jobs = await readAll(jobsDir);
      jobs.sort((a, b) => Date.parse(b.record.enqueuedAt) - Date.parse(a.record.enqueuedAt));
      return jobs.slice(0, limit).map((job) => job.record);
    },

    async appendTranscript(jobId) {
      events.emit(jobId);
    },

    // The dashboard reads what Redis would keep: the file's first maxTranscriptBytes, then one `cut`
    // line (the cursor then stands one past the cap). The file itself stays whole on disk.
    async readTranscript(jobId, cursor, maxBytes = limits.maxTranscriptBytes) {
      const file = transcriptOf(jobId);
      const start = Math.max(0, Math.floor(cursor));
      const cap = limits.maxTranscriptBytes;
      const size = await fileSize(file);
      const cut = { lines: [CUT_LINE], cursor: cap + 1 };
      if (start >= cap) return start === cap && size > cap ? cut : { lines: [], cursor: start };
      const chunk = await readLinesFrom(file, start, size, Math.min(maxBytes, cap - start), cap - start);
      // Nothing whole before the cap while the file goes past it: the next line crosses the cap.
      return chunk.lines.length === 0 && size > cap ? cut : chunk;
    },

    async putArtifact(jobId, artifact) {
      if (artifact.content.length > limits.maxArtifactBytes) throw tooLarge(artifact.content.length, limits);
      const meta = await update(jobId, async (job) => {
        const current = job ?? { record: { jobId, status: "running", enqueuedAt: new Date(clock()).toISOString() } as JobRecord, artifacts: [] };
        const used = current.artifacts.reduce((sum, a) => sum + a.bytes, 0);
        if (used + artifact.content.length > limits.maxJobArtifactBytes) throw jobFull(limits);
        const meta: ArtifactMeta = {
          id: `a${current.artifacts.length + 1}`,
          name: safeArtifactName(artifact.name),
          ...(artifact.description === undefined ? {} : { description: artifact.description }),
          bytes: artifact.content.length,
          contentType: artifact.contentType,
          createdAt: new Date(clock()).toISOString(),
        };
        await mkdir(artifactDir(jobId), { recursive: true, mode: 0o700 });
        // "wx": a file already there (left by another store's run) is never overwritten or followed.
        await writeFile(artifactPath(jobId, meta), artifact.content, { flag: "wx", mode: 0o600 });
        return { job: { ...current, artifacts: [...current.artifacts, meta] }, result: meta };
      });
      events.emit(jobId);
      return meta;
    },

    async readArtifact(jobId, artifactId) {
      if (!ARTIFACT_ID.test(artifactId)) return null;
      const job = await readJob(fileOf(jobId));
      const meta = job?.artifacts.find((a) => a.id === artifactId);
      if (meta === undefined) return null;
      const content = await readFile(artifactPath(jobId, meta)).catch(() => null);
      return content === null ? null : { meta, content };
    },

    watch(jobId, onChange) {
      events.on(jobId, onChange);
      return () => events.off(jobId, onChange);
    },

    async close() {
      events.removeAllListeners();
    },
  };
}

async function readJob(file: string): Promise<JobFile | null> {
  try {
    const value = JSON.parse(await readFile(file, "utf8")) as JobFile;
    return typeof value.record?.jobId === "string" && Array.isArray(value.artifacts) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Records are the operator's, as transcripts are: with TACKLE_SANDBOX=off as root, TACKLE_HOME is
 * reachable by the commands' uid, which reads whatever is world-readable there.
 */
async function writeJob(file: string, job: JobFile): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await chmod(path.dirname(file), 0o700).catch(() => undefined);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(job)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

async function readAll(dir: string): Promise<JobFile[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const jobs = await Promise.all(names.filter((name) => name.endsWith(".json")).map((name) => readJob(path.join(dir, name))));
  return jobs.filter((job): job is JobFile => job !== null);
}

/** Whole lines from byte `offset` on, at most `maxBytes` (at least one line); the cursor is the byte after the last. */
/**
 * The whole lines of `file` from `offset`, at most `maxBytes` of them; a first line longer than that is
 * read on to its end if it ends within `scanBytes`. None while the line at `offset` is unfinished.
 */
async function readLinesFrom(file: string, offset: number, size: number, maxBytes: number, scanBytes: number): Promise<{ lines: string[]; cursor: number }> {
  if (size <= offset) return { lines: [], cursor: offset };
  const handle = await open(file, "r");
  try {
    const read = async (length: number): Promise<Buffer> => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    };
    const bytes = await read(Math.min(size - offset, maxBytes));
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end > 0) {
      const lines = bytes
        .subarray(0, end)
        .toString("utf8")
        .split("\n")
        .filter((line) => line !== "");
      return { lines, cursor: offset + end };
    }
    if (size - offset <= maxBytes || scanBytes <= maxBytes) return { lines: [], cursor: offset };
    // One line longer than maxBytes: read on to its end rather than never move.
    const longer = await read(Math.min(size - offset, scanBytes));
    const newline = longer.indexOf(0x0a);
    if (newline === -1) return { lines: [], cursor: offset };
    return { lines: [longer.subarray(0, newline).toString("utf8")], cursor: offset + newline + 1 };
  } finally {
    await handle.close();
  }
}

async function fileSize(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}
