import type http from "node:http";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { Queue } from "bullmq";
import { connectRedis } from "../../jobs/redis-connection.js";
import type { Logger } from "../../logging/logger.js";

export const QUEUE_BOARD_PATH = "/dashboard/queues";

/**
 * @bull-board's view of the job queue, for the dashboard to mount behind its own sign-in. Read-only:
 * retrying or removing jobs from a page would bypass the lane and its tracking comment.
 * The queue's name and prefix are the BullMQ queue's defaults (`tackle-jobs`, `tackle`).
 */
export function createQueueBoard(options: { redisUrl: string; logger: Logger; queueName?: string; prefix?: string }): {
  handle(req: http.IncomingMessage, res: http.ServerResponse): void;
  close(): Promise<void>;
} {
  const connection = connectRedis(options.redisUrl, options.logger, "queue view", { maxRetriesPerRequest: null });
  const queue = new Queue(options.queueName ?? "tackle-jobs", { connection, prefix: options.prefix ?? "tackle" });
  queue.on("error", (error: Error) => options.logger.debug({ err: error.message }, "queue view error"));
  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUE_BOARD_PATH);
  // The express adapter may bring its own copy of @bull-board/api (a patch version apart): same shape, other declarations.
  const serverAdapter = adapter as unknown as Parameters<typeof createBullBoard>[0]["serverAdapter"];
  createBullBoard({ queues: [new BullMQAdapter(queue, { readOnlyMode: true })], serverAdapter });
  const app = adapter.getRouter() as (req: http.IncomingMessage, res: http.ServerResponse, next: (error?: unknown) => void) => void;
  return {
    handle(req, res) {
      app(req, res, (error?: unknown) => {
        if (error !== undefined) options.logger.warn({ err: error }, "queue view: a request failed");
        if (!res.headersSent) res.writeHead(error === undefined ? 404 : 500, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      });
    },
    async close() {
      await queue.close().catch(() => undefined);
      connection.disconnect();
    },
  };
}
