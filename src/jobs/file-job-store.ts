import { EventEmitter } from "node:events";
import { open, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { transcriptDir, transcriptPath } from "../agent/transcript.js";
import { safeArtifactName } from "../util/safe-artifact-name.js";
import { withLock } from "../workspace/file-lock.js";
import { ARTIFACT_ID, JOB_STORE_LIMITS, type ArtifactMeta, type JobRecord, type JobStore, type JobStoreLimits, type StoredJob } from "./job-store.js";
import { jobFull, tooLarge } from "./redis-job-store.js";

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
      return job === null ? null : ({ ...job.record, artifacts: job.artifacts, transcriptCut: false } satisfies StoredJob);
    },

    async list(limit) {
      const jobs = await readAll(jobsDir);
      jobs.sort((a, b) => Date.parse(b.record.enqueuedAt) - Date.parse(a.record.enqueuedAt));
      return jobs.slice(0, limit).map((job) => job.record);
    },

    async appendTranscript(jobId) {
      events.emit(jobId);
    },

    async readTranscript(jobId, cursor, maxBytes = limits.maxTranscriptBytes) {
      return readLinesFrom(transcriptPath(transcriptDir(options.home), jobId), Math.max(0, Math.floor(cursor)), maxBytes);
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
        await mkdir(artifactDir(jobId), { recursive: true });
        // "wx": a file already there (left by another store's run) is never overwritten or followed.
        await writeFile(artifactPath(jobId, meta), artifact.content, { flag: "wx" });
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

async function writeJob(file: string, job: JobFile): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(job)}\n`);
  await rename(temp, file);
}

async function readAll(dir: string): Promise<JobFile[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const jobs = await Promise.all(names.filter((name) => name.endsWith(".json")).map((name) => readJob(path.join(dir, name))));
  return jobs.filter((job): job is JobFile => job !== null);
}

/** Whole lines from byte `offset` on, at most `maxBytes` (at least one line); the cursor is the byte after the last. */
async function readLinesFrom(file: string, offset: number, maxBytes: number): Promise<{ lines: string[]; cursor: number }> {
  const size = await stat(file).then(
    (s) => s.size,
    () => 0,
  );
  if (size <= offset) return { lines: [], cursor: offset };
  const handle = await open(file, "r");
  try {
    const length = Math.min(size - offset, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    let end = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
    if (end === 0) {
      // One line longer than maxBytes: read on to its end rather than never move.
      const rest = await readFile(file);
      const newline = rest.indexOf(0x0a, offset);
      if (newline === -1) return { lines: [], cursor: offset };
      return { lines: [rest.subarray(offset, newline).toString("utf8")], cursor: newline + 1 };
    }
    const text = buffer.subarray(0, end).toString("utf8");
    end = offset + end;
    return { lines: text.split("\n").filter((line) => line !== ""), cursor: end };
  } finally {
    await handle.close();
  }
}
