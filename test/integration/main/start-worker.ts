/**
 * `tackle worker` as cli.ts runs it, for the health tests: startWorker over this process's
 * environment, `--port` from TEST_WORKER_PORT when set; an error is printed as the CLI prints it.
 */
import { startWorker } from "../../../src/main/worker.js";

try {
  await startWorker(process.env, {
    concurrency: 1,
    drainMs: 1_000,
    lockMs: 5_000,
    ...(process.env.TEST_WORKER_PORT === undefined ? {} : { port: process.env.TEST_WORKER_PORT }),
  });
} catch (error) {
  console.error(`tackle: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
