/**
 * Keeps the first and the last half of a process's output within `maxBytes` and counts the rest.
 * The head shows what started, the tail shows how it ended (a failing test summary, an error);
 * the middle of a 50 MB log is what a model can do without.
 */
export interface OutputCollector {
  push(chunk: Buffer): void;
  /** Bytes seen so far, kept or not. */
  readonly totalBytes: number;
  readonly droppedBytes: number;
  text(): string;
}

export function createOutputCollector(maxBytes: number): OutputCollector {
  const headCap = Math.ceil(maxBytes / 2);
  const tailCap = maxBytes - headCap;
  const head: Buffer[] = [];
  let headBytes = 0;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;

  function trimTail(): void {
    // Amortised: only compact once the tail holds twice what it keeps.
    if (tailBytes <= tailCap * 2 && tail.length < 4096) return;
    const joined = Buffer.concat(tail);
    const kept = joined.subarray(Math.max(0, joined.length - tailCap));
    tail = [Buffer.from(kept)];
    tailBytes = kept.length;
  }

  return {
    push(chunk: Buffer): void {
      total += chunk.length;
      let rest = chunk;
      if (headBytes < headCap) {
        const take = Math.min(headCap - headBytes, rest.length);
        head.push(rest.subarray(0, take));
        headBytes += take;
        rest = rest.subarray(take);
      }
      if (rest.length > 0 && tailCap > 0) {
        tail.push(rest);
        tailBytes += rest.length;
        trimTail();
      }
    },
    get totalBytes() {
      return total;
    },
    get droppedBytes() {
      return total - headBytes - Math.min(tailBytes, tailCap);
    },
    text(): string {
      const headText = Buffer.concat(head).toString("utf8");
      const tailBuffer = Buffer.concat(tail);
      const kept = tailBuffer.subarray(Math.max(0, tailBuffer.length - tailCap));
      const dropped = total - headBytes - kept.length;
      if (dropped <= 0) return headText + kept.toString("utf8");
      return `${headText}\n[... ${dropped} bytes of output omitted ...]\n${kept.toString("utf8")}`;
    },
  };
}
