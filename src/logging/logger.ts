import { pino, symbols, type DestinationStream, type Logger } from "pino";
import { createRedactor, redactDeep, type Redactor } from "../util/redact.js";
import { environmentSecrets } from "./environment-secrets.js";

export type { Logger };

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

type PinoInternals = Logger & { [symbols.chindingsSym]: string };

/**
 * pino appends a child's bindings to its parent's as text, so a child bound to a `name` writes a
 * second `"name"` key; Probot binds one at each level (probot, then github or octokit), which made a
 * line carry four. The child's own name replaces the inherited one: the bindings are parsed back (on
 * duplicate keys JSON.parse keeps the last value, in the first key's place) and written once.
 */
function keepInnermostName(child: Logger): void {
  const logger = child as PinoInternals;
  const chindings = logger[symbols.chindingsSym];
  if (chindings.indexOf('"name":') === chindings.lastIndexOf('"name":')) return;
  const bindings = JSON.stringify(JSON.parse(`{${chindings.slice(1)}}`));
  logger[symbols.chindingsSym] = `,${bindings.slice(1, -1)}`;
}

/**
 * The one root logger. Children are bound to delivery id, job id, repo, issue and tool. Every line
 * is masked on its way to the stream (pino's `streamWrite` hook, after serialization, so messages,
 * bindings and serialized errors alike): the known token formats, and the credentials of `env` by value.
 * Each line has one `name`: "tackle", or the innermost child's (Probot's "probot", "github").
 * `LOG_LEVEL` follows Probot's name; tests default to silent.
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env, destination?: DestinationStream): Logger {
  const level = env.LOG_LEVEL ?? (env.VITEST ? "silent" : "info");
  const options = {
    level,
    base: { name: "tackle" },
    onChild: keepInnermostName,
    hooks: { streamWrite: logLineRedactor(createRedactor(environmentSecrets(env))) },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

export const silentLogger: Logger = pino({ level: "silent" });
