const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;

/**
 * Counts the JSON values a body will parse into, as the bytes go by: every `{`, `[` and `,` outside a
 * string (each value but a container's first follows a comma, and every container opens with a
 * bracket). The byte budget alone does not bound what a parser builds: 8 MiB of `{},{},…` is 2.8
 * million objects, about 170 MB of heap, and a repository's twenty servers answering at once made
 * 3.4 GB. A JSON string cannot hold a raw line break, so one ends any string (an event stream's
 * `event:` and `id:` lines included); in an event stream a blank line ends an event, which is parsed
 * and let go on its own, so the count starts again, and in newline-delimited JSON (a stdio MCP server's
 * stdout) each line feed does. `push` returns the largest count the chunk reached.
 */
export type JsonValueUnit = "body" | "event" | "line";

export function createJsonValueMeter(unit: JsonValueUnit): { push(chunk: Uint8Array): number } {
  let values = 0;
  let inString = false;
  let escaped = false;
  let lineEmpty = true;
  let afterCR = false;
  return {
    push(chunk) {
      let peak = values;
      for (const byte of chunk) {
        if (byte === LF || byte === CR) {
          const crlf = byte === LF && afterCR;
          afterCR = byte === CR;
          inString = false;
          escaped = false;
          if (unit === "line") {
            // A carriage return is JSON whitespace; only a line feed ends the message.
            if (byte === LF) values = 0;
            continue;
          }
          if (crlf) continue;
          if (unit === "event" && lineEmpty) values = 0;
          lineEmpty = true;
          continue;
        }
        afterCR = false;
        lineEmpty = false;
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
        } else if (byte === QUOTE) {
          inString = true;
        } else if (byte === COMMA || byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
          values += 1;
          if (values > peak) peak = values;
        }
      }
      return peak;
    },
  };
}
