import { pino, type DestinationStream, type Logger } from "pino";
import { createRedactor, redactDeep, type Redactor } from "../util/redact.js";

export type { Logger };

/**
 * Variables whose values are credentials, masked by value in every log line: the contract's keys and
 * tokens and each SDK's own (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `PRIVATE_KEY`, `*_PASSWORD`), not
 * the paths or files that point at them.
 */
const SECRET_NAME = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)(?:_|$)/i;
const NOT_SECRET_NAME = /_(?:PATH|FILE|DIR)$/i;

function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined && SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name) ? [value] : [],
  );
}

/**
 * Masks one serialized log line. Cheap when there is nothing to mask; otherwise the line is parsed and
 * each string masked, so that the line stays valid JSON (a mask in the raw text could swallow the
 * escapes around it: a cut-off PEM block is masked to its end).
 */
function logLineRedactor(redact: Redactor): (line: string) => string {
  return (line) => {
    const masked = redact(line);
    if (masked === line) return line;
    const eol = /\r?\n$/.exec(line)?.[0] ?? "";
    try {
      return `${JSON.stringify(redactDeep(JSON.parse(line), redact))}${eol}`;
    } catch {
      return masked;
    }
  };
}

/**
 * The one root logger. Children are bound to delivery id, job id, repo, issue and tool. Every line
 * is masked on its way to the stream (pino's `streamWrite` hook, after serialization, so messages,
 * bindings and serialized errors alike): the known token formats, and the credentials of `env` by value.
 * `LOG_LEVEL` follows Probot's name; tests default to silent.
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env, destination?: DestinationStream): Logger {
  const level = env.LOG_LEVEL ?? (env.VITEST ? "silent" : "info");
  const options = {
    level,
    base: { name: "tackle" },
    hooks: { streamWrite: logLineRedactor(createRedactor(environmentSecrets(env))) },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

export const silentLogger: Logger = pino({ level: "silent" });
