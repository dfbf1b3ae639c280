const LF = 0x0a;
const CR = 0x0d;

/**
 * Measures the event a `text/event-stream` body is in the middle of: the bytes of its lines since the
 * blank line that ended the last event (CRLF, LF and CR all end a line, as the format says). An SSE
 * parser keeps an unfinished line and an unfinished event in memory, so this is what one event can
 * make a reader hold. `push` returns the largest size an event reached while the chunk was read.
 */
export function createEventSizeMeter(): { push(chunk: Uint8Array): number } {
  let eventBytes = 0;
  let lineEmpty = true;
  let afterCR = false;
  return {
    push(chunk) {
      // The usual long `data:` line has no break in it: counted without a byte loop.
      if (chunk.indexOf(LF) === -1 && chunk.indexOf(CR) === -1) {
        if (chunk.length > 0) {
          eventBytes += chunk.length;
          lineEmpty = false;
          afterCR = false;
        }
        return eventBytes;
      }
      let peak = eventBytes;
      for (const byte of chunk) {
        if (byte === LF && afterCR) {
          afterCR = false; // the LF of a CRLF: the line already ended at its CR
          continue;
        }
        afterCR = byte === CR;
        if (byte !== LF && byte !== CR) {
          eventBytes += 1;
          lineEmpty = false;
          if (eventBytes > peak) peak = eventBytes;
        } else if (lineEmpty) {
          eventBytes = 0; // a blank line: the event is complete
        } else {
          lineEmpty = true;
        }
      }
      return peak;
    },
  };
}
