import type { Logger } from "../logging/logger.js";
import { redactDeep, type MaskedDeep, type Redactor } from "../util/redact.js";
import type { SurfaceMarkdown } from "../util/surface-markdown.js";
import { renderTrackingComment, type TrackingState } from "./tracking-comment.js";

/**
 * Where the job's state goes, masked: the tracking comment (rendered by `commentSink`), or the
 * terminal in local runs, which reads the state itself, never the Markdown.
 */
export interface TrackingSink {
  write(state: MaskedDeep<TrackingState>): Promise<unknown>;
}

/** A comment's writer: creates the comment on first call, edits it afterwards; the comment's id. */
export interface CommentWriter {
  write(body: SurfaceMarkdown): Promise<number | null>;
}

/** The tracking comment: each state rendered as its Markdown and written through `writer`. */
export function commentSink(
  writer: CommentWriter,
  options: {
    /** The job id, written into the comment's hidden marker. */
    jobId: string;
    clock: () => number;
    /** @defaultValue "tackle"; null: no commands to mention. */
    commandName?: string | null;
    /** The job's dashboard page, linked from the comment. @defaultValue none */
    jobUrl?: string | undefined;
  },
): TrackingSink {
  const commandName = options.commandName === undefined ? "tackle" : options.commandName;
  return { write: (state) => writer.write(renderTrackingComment(state, options.jobId, options.clock(), commandName, options.jobUrl)) };
}

export interface Tracker {
  /** Working-state updates are coalesced to at most one edit per `minIntervalMs`. */
  update(state: TrackingState): void;
  /** Writes `state` now, after any pending edit; final states always go through this. */
  flush(state: TrackingState): Promise<void>;
}

/**
 * Keeps one tracking comment current without flooding GitHub with edits: intermediate states are
 * coalesced (only the newest is written), final states are written at once and in order.
 */
export function createTracker(options: {
  sink: TrackingSink;
  clock: () => number;
  logger: Logger;
  /** @defaultValue 3000 */
  minIntervalMs?: number;
  /**
   * The job's redactor, applied to every text of a state before the sink sees it: rendering the
   * comment cuts long texts to size, and a secret the cut splits would no longer match by value
   * afterwards. Required, so no sink receives a state the tracker did not mask.
   */
  redact: Redactor;
}): Tracker {
  const minInterval = options.minIntervalMs ?? 3000;
  let lastWrite = 0;
  let queued: TrackingState | null = null;
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();

  const write = (state: TrackingState): Promise<void> => {
    chain = chain.then(async () => {
      try {
        await options.sink.write(redactDeep(state, options.redact));
        lastWrite = options.clock();
      } catch (error) {
        // A failed edit must not fail the job; the next state (or the final one) tries again.
        options.logger.warn({ err: error }, "tracking comment update failed");
      }
    });
    return chain;
  };

  const writeQueued = (): void => {
    timer = null;
    if (queued) {
      const state = queued;
      queued = null;
      void write(state);
    }
  };

  return {
    update(state) {
      queued = state;
      if (timer) return;
      const wait = Math.max(0, lastWrite + minInterval - options.clock());
      timer = setTimeout(writeQueued, wait);
      timer.unref?.();
    },
    async flush(state) {
      if (timer) clearTimeout(timer);
      timer = null;
      queued = null;
      await write(state);
    },
  };
}
