import { StringDecoder } from "node:string_decoder";
import { TackleError } from "../errors/index.js";
import type { ExecPort, StartedProcess } from "./ports.js";

/** @defaultValue background jobs and Monitors of one job running at once */
export const MAX_RUNNING_JOBS = 4;
/** Unread output kept per job; older unread output is dropped (and counted) past it. */
const MAX_UNREAD_CHARS = 64_000;
/**
 * Unread output all the job's ended commands keep together: a job may start command after command
 * without reading them, and each would otherwise hold its {@link MAX_UNREAD_CHARS} for the job's life.
 * Past it the oldest ended command's output is dropped (and counted, as JobOutput says).
 */
const MAX_ENDED_UNREAD_CHARS = 16 * MAX_UNREAD_CHARS;
/** One Monitor event: a line, cut to this. */
const MAX_EVENT_CHARS = 1_000;
/** Kept of a line past the cut, so the redactor sees a secret that straddles it whole. */
const REDACTION_MARGIN = 1_000;
export const MONITOR_DEFAULT_EVENTS = 20;
export const MONITOR_MAX_EVENTS = 200;
export const MONITOR_DEFAULT_TIMEOUT_MS = 600_000;
export const MONITOR_MAX_TIMEOUT_MS = 3_600_000;
/** Events delivered with one turn; the rest are counted. */
const MAX_EVENTS_PER_TURN = 50;

export type BackgroundJobKind = "bash" | "monitor";
export type BackgroundJobStatus = "running" | "exited" | "stopped" | "timed_out" | "killed";

export interface BackgroundJobInfo {
  id: string;
  kind: BackgroundJobKind;
  command: string;
  description?: string;
  status: BackgroundJobStatus;
  /** Set once it exited by itself. */
  exitCode: number | null;
  startedAt: number;
  /** When it ended; absent while it runs. */
  endedAt?: number;
  /** Monitor only: events delivered so far. */
  events?: number;
}

export interface JobOutputRead {
  job: BackgroundJobInfo;
  /** Output since the last read (a Monitor's undelivered events). */
  output: string;
  /** Unread characters dropped since the last read because too much piled up. */
  droppedChars: number;
}

/**
 * The job's long-running commands: `Bash` with `run_in_background`, and `Monitor`, whose output lines
 * become events the agent receives with its next turn. They run in the job's sandbox (its loopback
 * and /tmp), at most {@link MAX_RUNNING_JOBS} at once, and all are stopped when the job ends.
 */
export interface BackgroundJobs {
  startBash(command: string, options: { description?: string; timeoutMs?: number }): Promise<BackgroundJobInfo>;
  startMonitor(command: string, options: { description?: string; timeoutMs: number; maxEvents: number }): Promise<BackgroundJobInfo>;
  list(): BackgroundJobInfo[];
  /** New output since the last read; with `waitMs`, waits that long for some (or for the end). */
  read(id: string, waitMs: number, signal?: AbortSignal): Promise<JobOutputRead>;
  stop(id: string): Promise<BackgroundJobInfo>;
  /** Events for the agent's next turn: Monitor lines, and the end of each job. Empty when none. */
  takeEvents(): string[];
  /** Stops every job still running (the job is over). */
  stopAll(): Promise<void>;
}

interface Entry {
  info: BackgroundJobInfo;
  process: StartedProcess | undefined;
  unread: string;
  dropped: number;
  /** Monitor: the part of a line not yet ended, as far as an event keeps it, and how much more there was. */
  partial: string;
  partialDropped: number;
  /** Output is decoded across chunks: a character split between two stays whole. */
  decoder: StringDecoder;
  maxEvents: number;
  timer: NodeJS.Timeout | undefined;
  /** Wakes readers waiting for output or the end. */
  wake: Set<() => void>;
  /** How much of `unread` counts toward the ended commands' bound (set once it ended). */
  endedChars: number;
}

export interface BackgroundJobsOptions {
  /** @defaultValue Date.now */
  clock?: () => number;
  /** The job's redactor, applied to each Monitor line before it is cut to an event. @defaultValue none */
  redact?: (text: string) => string;
}

export function createBackgroundJobs(exec: ExecPort, options: BackgroundJobsOptions = {}): BackgroundJobs {
  const clock = options.clock ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);
  const start = exec.start?.bind(exec);
  const jobs = new Map<string, Entry>();
  const events: Array<{ id: string; line: boolean; text: string }> = [];
  let eventsDropped = 0;
  let next = 1;
  let closed = false;
  /** Ended commands with unread output, oldest first, and what they keep together. */
  const ended: Entry[] = [];
  let endedChars = 0;

  /** Counts an ended command's unread output, then drops the oldest ones' past the bound. */
  const keepEnded = (entry: Entry): void => {
    if (entry.unread === "") return;
    entry.endedChars = entry.unread.length;
    endedChars += entry.endedChars;
    ended.push(entry);
    while (endedChars > MAX_ENDED_UNREAD_CHARS && ended.length > 0) {
      const oldest = ended.shift() as Entry;
      endedChars -= oldest.endedChars;
      oldest.dropped += oldest.unread.length;
      oldest.unread = "";
      oldest.endedChars = 0;
    }
  };

  const running = (): number => [...jobs.values()].filter((entry) => entry.info.status === "running").length;
  const snapshot = (entry: Entry): BackgroundJobInfo => ({ ...entry.info });
  const wake = (entry: Entry): void => {
    for (const resume of entry.wake) resume();
    entry.wake.clear();
  };
  const pushEvent = (id: string, text: string, line = false): void => {
    if (events.length >= MAX_EVENTS_PER_TURN) eventsDropped += 1;
    else events.push({ id, line, text: `[${id}] ${text}` });
  };

  const onOutput = (entry: Entry) => (chunk: Buffer) => {
    const text = entry.decoder.write(chunk);
    if (entry.info.kind === "monitor") {
      // Only the new text is searched, and a line is kept only as far as an event shows it: an endless
      // line costs the host neither memory nor time.
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        keepOfLine(entry, text.slice(start, end));
        monitorLine(entry);
        start = end + 1;
      }
      keepOfLine(entry, text.slice(start));
    } else {
      entry.unread += text;
      if (entry.unread.length > MAX_UNREAD_CHARS) {
        entry.dropped += entry.unread.length - MAX_UNREAD_CHARS;
        entry.unread = entry.unread.slice(-MAX_UNREAD_CHARS);
      }
    }
    wake(entry);
  };

  const keepOfLine = (entry: Entry, text: string): void => {
    const room = MAX_EVENT_CHARS + REDACTION_MARGIN - entry.partial.length;
    entry.partial += text.slice(0, Math.max(0, room));
    entry.partialDropped += Math.max(0, text.length - Math.max(0, room));
  };

  /** The line kept so far becomes an event: redacted before it is cut, so a secret across the cut is masked whole. */
  const monitorLine = (entry: Entry): void => {
    const kept = redact(entry.partial.replace(/\r/g, ""));
    const dropped = entry.partialDropped;
    entry.partial = "";
    entry.partialDropped = 0;
    if (entry.info.status !== "running" || (kept.trim() === "" && dropped === 0)) return;
    const count = (entry.info.events ?? 0) + 1;
    entry.info.events = count;
    const more = kept.length - Math.min(kept.length, MAX_EVENT_CHARS) + dropped;
    const cut = more > 0 ? `${kept.slice(0, MAX_EVENT_CHARS)} [… ${more} more characters]` : kept;
    pushEvent(entry.info.id, cut, true);
    entry.unread += `${cut}\n`;
    if (count >= entry.maxEvents) void end(entry, "stopped", `reached its max_events (${entry.maxEvents}) and was stopped`);
  };

  /** Ends a job on Tackle's side (stop, timeout, max_events) and says so once. */
  const end = async (entry: Entry, status: BackgroundJobStatus, why: string): Promise<void> => {
    if (entry.info.status !== "running") return;
    entry.info.status = status;
    entry.info.endedAt = clock();
    clearTimeout(entry.timer);
    pushEvent(entry.info.id, why);
    wake(entry);
    await entry.process?.stop();
  };

  const launch = async (
    kind: BackgroundJobKind,
    command: string,
    options: { description?: string; timeoutMs?: number; maxEvents?: number },
  ): Promise<BackgroundJobInfo> => {
    if (start === undefined) throw new TackleError("workspace", "background commands are not available here: run the command in the foreground");
    if (closed) throw new TackleError("aborted", "the job is over: no more background commands");
    if (running() >= MAX_RUNNING_JOBS) {
      throw new TackleError(
        "workspace",
        `${MAX_RUNNING_JOBS} background jobs are running already (the most a job may have at once): stop one with JobStop first (JobList shows them)`,
      );
    }
    const id = `${kind === "monitor" ? "monitor" : "job"}-${next++}`;
    const entry: Entry = {
      info: {
        id,
        kind,
        command,
        ...(options.description !== undefined ? { description: options.description } : {}),
        status: "running",
        exitCode: null,
        startedAt: clock(),
        ...(kind === "monitor" ? { events: 0 } : {}),
      },
      process: undefined,
      unread: "",
      dropped: 0,
      partial: "",
      partialDropped: 0,
      decoder: new StringDecoder("utf8"),
      maxEvents: options.maxEvents ?? Number.POSITIVE_INFINITY,
      timer: undefined,
      wake: new Set(),
      endedChars: 0,
    };
    jobs.set(id, entry);
    try {
      entry.process = await start(["bash", "-c", command], { onStdout: onOutput(entry) });
    } catch (error) {
      jobs.delete(id);
      throw error;
    }
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      entry.timer = setTimeout(() => void end(entry, "timed_out", `timed out after ${ms} ms and was killed`), ms);
      entry.timer.unref?.();
    }
    void entry.process.exited.then(({ exitCode }) => {
      if (entry.info.kind === "monitor") {
        keepOfLine(entry, entry.decoder.end());
        if (entry.partial !== "" || entry.partialDropped > 0) monitorLine(entry);
      }
      entry.partial = "";
      clearTimeout(entry.timer);
      if (entry.info.status === "running") {
        entry.info.status = exitCode === null ? "killed" : "exited";
        entry.info.exitCode = exitCode;
        entry.info.endedAt = clock();
        pushEvent(id, exitCode === null ? "was killed by a signal" : `exited with code ${exitCode}`);
      }
      keepEnded(entry);
      wake(entry);
    });
    return snapshot(entry);
  };

  const find = (id: string): Entry => {
    const entry = jobs.get(id);
    if (entry === undefined) {
      const known = [...jobs.keys()];
      throw new TackleError("workspace", `no background job "${id}"${known.length > 0 ? `; this job has ${known.join(", ")}` : "; none was started"}`);
    }
    return entry;
  };

  return {
    startBash: (command, options) => launch("bash", command, options),
    startMonitor: (command, options) => launch("monitor", command, options),
    list: () => [...jobs.values()].map(snapshot),

    async read(id, waitMs, signal) {
      const entry = find(id);
      if (entry.unread === "" && entry.info.status === "running" && waitMs > 0) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            entry.wake.delete(done);
            resolve();
          };
          const timer = setTimeout(done, waitMs);
          signal?.addEventListener("abort", done, { once: true });
          entry.wake.add(done);
        });
      }
      const read: JobOutputRead = { job: snapshot(entry), output: entry.unread, droppedChars: entry.dropped };
      entry.unread = "";
      entry.dropped = 0;
      if (entry.endedChars > 0) {
        endedChars -= entry.endedChars;
        entry.endedChars = 0;
        ended.splice(ended.indexOf(entry), 1);
      }
      // A Monitor's events read here are not delivered again with the next turn.
      if (entry.info.kind === "monitor" && read.output !== "") {
        for (let i = events.length - 1; i >= 0; i--) if (events[i]?.id === id && events[i]?.line === true) events.splice(i, 1);
      }
      return read;
    },

    async stop(id) {
      const entry = find(id);
      await end(entry, "stopped", "was stopped (JobStop)");
      await entry.process?.exited;
      return snapshot(entry);
    },

    takeEvents() {
      const taken = events.splice(0).map((event) => event.text);
      if (eventsDropped > 0) taken.push(`[${eventsDropped} more events were dropped: read a job's output with JobOutput]`);
      eventsDropped = 0;
      return taken;
    },

    async stopAll() {
      closed = true;
      await Promise.all(
        [...jobs.values()].map(async (entry) => {
          clearTimeout(entry.timer);
          if (entry.info.status === "running") {
            entry.info.status = "stopped";
            entry.info.endedAt = clock();
          }
          await entry.process?.stop();
        }),
      );
    },
  };
}

/** One line about a background job: JobList, JobOutput, JobStop and the tracking comment. */
export function describeJob(job: BackgroundJobInfo, now: number): string {
  const seconds = Math.round(((job.endedAt ?? now) - job.startedAt) / 1000);
  const status = job.status === "exited" ? `exited with code ${job.exitCode}` : job.status.replace("_", " ");
  const events = job.events !== undefined ? `, ${job.events} events` : "";
  const about = job.description !== undefined ? ` (${job.description})` : "";
  return `${job.id}: ${status} after ${seconds}s${events}: ${oneLine(job.command)}${about}`;
}

function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
