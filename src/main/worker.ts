import { createQueue, runQueueWorker } from "../jobs/index.js";
import { createLogger } from "../logging/logger.js";
import { createMetrics } from "../web/create-metrics.js";
import { listenHealthServer, type HealthServer } from "../web/health-server.js";
import { processJob, reportDeadJob } from "../worker/index.js";
import { createJobRuntime } from "./runtime.js";

export interface WorkerOptions {
  concurrency: number;
  drainMs: number;
  lockMs: number;
  /**
   * `--port N`, as a number or as given on the command line: serve `/healthz`, `/readyz` and
   * `/metrics` there (0 picks a free port). @defaultValue none: the worker opens no port
   */
  port?: number | string | undefined;
  /** The address the health port binds. @defaultValue HOST, else every interface */
  host?: string | undefined;
}

/** The health port asked for, or a clear error before anything starts. */
function healthPort(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = typeof value === "number" ? value : /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`worker: --port must be an integer from 0 to 65535 (got ${JSON.stringify(String(value))})`);
  }
  return port;
}

/**
 * `tackle worker`: consume the BullMQ queue until SIGTERM, then drain within a bound. With a port,
 * `/healthz` answers 200 while the process is up and `/readyz` 200 while Redis answers (503 otherwise),
 * from before the first job is taken until the drain has ended.
 */
export async function startWorker(processEnv: NodeJS.ProcessEnv, options: WorkerOptions): Promise<void> {
  const port = healthPort(options.port);
  const logger = createLogger(processEnv);
  const { env, deps } = await createJobRuntime(processEnv, { mode: "worker", logger });
  // Counted with or without a port: the port only decides whether anyone can read them.
  const metrics = createMetrics({ processMetrics: port !== undefined });
  deps.metrics = metrics.jobs;
  const queue = createQueue({
    redisUrl: env.redisUrl,
    consume: true,
    concurrency: options.concurrency,
    lockDurationMs: options.lockMs,
    stalledIntervalMs: Math.max(500, Math.floor(options.lockMs / 2)),
    onDead: (data, reason) => reportDeadJob(data, deps, reason),
    logger,
  });
  metrics.watchQueue(queue);
  const closeStores = async (): Promise<void> => {
    await deps.approvals?.close();
    await deps.claims?.close();
    await deps.memory?.store.close();
    await deps.budget?.close();
    await deps.jobStore?.close();
  };
  let health: HealthServer | undefined;
  if (port !== undefined) {
    health = await listenHealthServer({
      port,
      host: options.host ?? processEnv.HOST,
      ready: () => queue.ready(),
      metrics: { metrics, token: env.metricsToken, logger },
    }).catch(async (error: unknown) => {
      // Nothing has started: let go of Redis so the process can exit with the error.
      await queue.close(0);
      await closeStores();
      throw error;
    });
    logger.info({ port: health.port }, "worker health checks listening");
    console.log(`tackle worker health checks on port ${health.port} (/healthz, /readyz, /metrics)`);
  }
  console.log(`tackle worker consuming ${queue.kind} jobs (concurrency ${options.concurrency})`);
  try {
    await runQueueWorker({
      queue,
      processor: async (data, signal, attempt) => {
        await metrics.observeJob(data, () => processJob(data, deps, signal, attempt));
      },
      drainMs: options.drainMs,
      logger,
    });
  } finally {
    await health?.close();
  }
  // After the drain: a job aborted past it has already given up its wait.
  await closeStores();
}
