// The Action's log is read by people in the Actions UI, not by a log shipper: each pino line (already
// masked by the logger) is printed as one line of text, `level: message {fields}`. Annotations are
// left to the step's own result, so a warning logged on the way does not pose as the reason it failed.
import type { DestinationStream } from "pino";
import { oneLogLine } from "../util/plain-text.js";

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warning", 50: "error", 60: "fatal" };
/** Said once per process, or carried by the step itself. */
const DROPPED = new Set(["level", "time", "pid", "hostname", "name", "msg"]);

export interface ActionLogOptions {
  /** Keep serialized errors whole, stack included (a debug run: `ACTIONS_STEP_DEBUG`). @defaultValue false */
  stacks?: boolean;
}

export function formatActionLogLine(line: string, options: ActionLogOptions = {}): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${oneLogLine(line.endsWith("\n") ? line.slice(0, -1) : line)}\n`;
  }
  const level = LEVELS[Number(record.level)] ?? "log";
  const fields = Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => !DROPPED.has(key))
      .map(([key, value]) => [key, options.stacks ? value : brief(value)]),
  );
  const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
  return `${oneLogLine(`${level}: ${String(record.msg ?? "")}${rest}`)}\n`;
}

/** A serialized error as its message (and code), without the stack. */
function brief(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("stack" in value) || !("message" in value)) return value;
  const { message, code } = value as { message: unknown; code?: unknown };
  return code === undefined ? message : `${String(message)} (${String(code)})`;
}

/** A pino destination writing formatted lines to `write` (stdout by default). */
export function actionLogDestination(options: ActionLogOptions = {}, write: (text: string) => void = (text) => process.stdout.write(text)): DestinationStream {
  return { write: (line: string) => write(formatActionLogLine(line, options)) };
}
