import { createLogger, type Logger } from "../../../src/logging/logger.js";

export interface LogLine {
  level: number;
  msg?: string;
  name?: string;
  [key: string]: unknown;
}

/** A root logger at `LOG_LEVEL` (debug unless given) writing into memory, as the process would to stdout. */
export function captureLogs(env: NodeJS.ProcessEnv = {}): { logger: Logger; lines: string[]; records: () => LogLine[] } {
  const lines: string[] = [];
  const logger = createLogger({ LOG_LEVEL: "debug", ...env }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as LogLine) };
}

/**
 * The keys of a JSON object's top level, duplicates included (JSON.parse keeps only the last of
 * them, so it cannot show a line that carries `"name"` twice).
 */
export function topLevelKeys(json: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) keys.push(JSON.parse(json.slice(i, end + 1)) as string);
      expectKey = false;
      i = end;
    } else if (c === "{" || c === "[") {
      depth += 1;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") {
      depth -= 1;
    } else if (c === "," && depth === 1) {
      expectKey = true;
    }
  }
  return keys;
}
