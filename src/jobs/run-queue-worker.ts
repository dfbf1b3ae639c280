import type { Logger } from "../logging/logger.js";
import type { JobProcessor, Queue } from "./queue.js";

type Signal = "SIGTERM" | "SIGINT";

export interface RunQueueWorkerOptions {
  queue: Queue;
  processor: JobProcessor;
  /** How long running jobs get to finish after SIGTERM/SIGINT before they are aborted. @defaultValue 30_000 */
  drainMs?: number;
  logger: Logger;
  /** Where the signals come from. @defaultValue process */
  signals?: { once(signal: Signal, listener: () => void): unknown; off(signal: Signal, listener: () => void): unknown };
}

/**
 * The queue side of `tackle worker`: consume until SIGTERM or SIGINT, then stop taking jobs, let
 * running ones finish within `drainMs`, abort the rest (BullMQ requeues them) and resolve.
 */
export async function runQueueWorker(options: RunQueueWorkerOptions): Promise<void> {
  const signals = options.signals ?? process;
  const drainMs = options.drainMs ?? 30_000;
  const stopped = new Promise<Signal>((resolve) => {
    const onTerm = (): void => {
      signals.off("SIGINT", onInt);
      resolve("SIGTERM");
    };
    const onInt = (): void => {
      signals.off("SIGTERM", onTerm);
      resolve("SIGINT");
    };
    signals.once("SIGTERM", onTerm);
    signals.once("SIGINT", onInt);
  });
  await options.queue.start(options.processor);
  options.logger.info({ queue: options.queue.kind }, "worker consuming jobs");
  const signal = await stopped;
  options.logger.info({ signal, drainMs }, "worker draining");
  await options.queue.close(drainMs);
  options.logger.info("worker stopped");
}
