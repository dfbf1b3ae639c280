import { TackleError } from "../errors/tackle-error.js";

/** Far past any chunk a server sends (a whole tool call of a large file is well under a megabyte). */
export const MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

/**
 * The `data` of each server-sent event in a byte stream, in order (its `data:` lines joined by "\n",
 * as the EventSource spec does); comments, other fields and events without data are skipped. Events
 * end at a blank line; what is left when the stream ends counts as a last event, so a server that
 * omits the final blank line loses nothing (a half-sent event then fails where its data is parsed).
 * An event longer than `maxEventChars` rejects with a `model_api` TackleError (not retryable).
 */
export async function* readSseData(body: AsyncIterable<Uint8Array>, maxEventChars = MAX_SSE_EVENT_CHARS): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  // The event being read, in pieces joined once its end arrives: each read is searched once, so a
  // long event costs its length, not its length at every read. `tail` is its last 3 characters,
  // where an end split across two reads begins.
  let held: string[] = [];
  let heldLength = 0;
  let tail = "";
  for await (const bytes of body) {
    let text = decoder.decode(bytes, { stream: true });
    // Only the first event of a read needs the tail: later ones are slices of the read, never copied.
    for (let window = tail + text, end = eventEnd(window); end !== undefined; window = text, end = eventEnd(window)) {
      const event = held.join("").slice(0, heldLength - tail.length) + window.slice(0, end.index);
      text = window.slice(end.index + end.length);
      held = [];
      heldLength = 0;
      tail = "";
      const data = dataOf(event);
      if (data !== undefined) yield data;
    }
    held.push(text);
    heldLength += text.length;
    tail = (tail + text).slice(-3);
    if (heldLength > maxEventChars) {
      throw new TackleError("model_api", `the server sent an event longer than ${maxEventChars} characters`, { retryable: false });
    }
  }
  const data = dataOf(held.join("") + decoder.decode());
  if (data !== undefined) yield data;
}

function eventEnd(buffer: string): { index: number; length: number } | undefined {
  const match = /\r\n\r\n|\n\n|\r\r/.exec(buffer);
  return match === null ? undefined : { index: match.index, length: match[0].length };
}

function dataOf(event: string): string | undefined {
  const lines = event
    .split(/\r\n|\n|\r/)
    .filter((line) => line === "data" || line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""));
  return lines.length === 0 ? undefined : lines.join("\n");
}
