import type { Logger } from "../logging/logger.js";
import type { DailyBudget } from "./daily-budget.js";
import { createEmbeddedDailyBudget } from "./embedded-daily-budget.js";
import { createRedisDailyBudget } from "./redis-daily-budget.js";

/**
 * The daily budget of this process, on the same backend choice as the queue: in Redis when set (jobs
 * run in many processes), in memory otherwise (this process runs them all).
 */
export function createDailyBudget(options: { redisUrl?: string | null; prefix?: string; logger: Logger }): DailyBudget {
  if (!options.redisUrl) return createEmbeddedDailyBudget();
  return createRedisDailyBudget({ redisUrl: options.redisUrl, logger: options.logger, ...(options.prefix === undefined ? {} : { prefix: options.prefix }) });
}
