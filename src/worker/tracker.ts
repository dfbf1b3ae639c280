import type { Logger } from "../logging/logger.js";
import { redactDeep, type MaskedDeep, type Redactor } from "../util/redact.js";
import type { SurfaceMarkdown } from "../util/surface-markdown.js";
import { renderTrackingComment, type TrackingState } from "./tracking-comment.js";

/** Where the tracking comment lives: a GitHub comment edited in place, or the terminal in local runs. */
export interface TrackingSink {
  /** Creates the comment on first call, edits it afterwards. */
  write(body: SurfaceMarkdown): Promise<unknown>;
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
  /** The job id, written into the comment's hidden marker. */
  jobId: string;
  clock: () => number;
  logger: Logger;
  /** @defaultValue 3000 */
  minIntervalMs?: number;
  /** @defaultValue "tackle"; null: no commands to mention. */
  commandName?: string | null;
  /** The job's dashboard page, linked from the comment. @defaultValue none */
  jobUrl?: string;
  /**
   * The job's redactor, applied to every text of a state before the comment is rendered: rendering
   * cuts long texts to size, and a secret the cut splits would no longer match by value afterwards.
   * Required, so no tracker renders a state it did not mask.
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
        const shown: MaskedDeep<TrackingState> = redactDeep(state, options.redact);
        await options.sink.write(
          renderTrackingComment(shown, options.jobId, options.clock(), options.commandName === undefined ? "tackle" : options.commandName, options.jobUrl),
        );
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
