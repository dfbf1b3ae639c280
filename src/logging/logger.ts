import { pino, type Logger } from "pino";

export type { Logger };

/**
 * The one root logger. Children are bound to delivery id, job id, repo, issue and tool.
 * `LOG_LEVEL` follows Probot's name; tests default to silent.
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  const level = env.LOG_LEVEL ?? (env.VITEST ? "silent" : "info");
  return pino({ level, base: { name: "tackle" } });
}

export const silentLogger: Logger = pino({ level: "silent" });
