/**
 * The `data` of each server-sent event in a byte stream, in order (its `data:` lines joined by "\n",
 * as the EventSource spec does); comments, other fields and events without data are skipped. Events
 * end at a blank line; what is left when the stream ends counts as a last event, so a server that
 * omits the final blank line loses nothing (a half-sent event then fails where its data is parsed).
 */
export async function* readSseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    for (let end = eventEnd(buffer); end !== undefined; end = eventEnd(buffer)) {
      const data = dataOf(buffer.slice(0, end.index));
      buffer = buffer.slice(end.index + end.length);
      if (data !== undefined) yield data;
    }
  }
  buffer += decoder.decode();
  const data = dataOf(buffer);
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
