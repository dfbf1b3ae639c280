import { describe, expect, it } from "vitest";
import { createEventSizeMeter } from "../../../src/net/event-size-meter.js";

const bytes = (text: string) => Buffer.from(text, "latin1");

describe("createEventSizeMeter", () => {
  it("counts the bytes of an event's lines until the blank line that ends it", () => {
    const meter = createEventSizeMeter();
    expect(meter.push(bytes("data: abc\n"))).toBe(9);
    expect(meter.push(bytes("data: de\n"))).toBe(17);
    expect(meter.push(bytes("\n"))).toBe(17); // the largest size reached in the chunk
    expect(meter.push(bytes("data: x"))).toBe(7);
  });

  it("treats CRLF, LF and CR as line ends, a CRLF split across chunks included", () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      const meter = createEventSizeMeter();
      meter.push(bytes(`data: one${end}${end}`));
      expect(meter.push(bytes("x"))).toBe(1);
    }
    const split = createEventSizeMeter();
    split.push(bytes("data: one\r"));
    split.push(bytes("\n")); // the LF of the CRLF: not a blank line
    expect(split.push(bytes("data: two"))).toBe(18);
    split.push(bytes("\r"));
    split.push(bytes("\n\r\n"));
    expect(split.push(bytes("z"))).toBe(1);
  });

  it("grows without bound on a line that never ends, and reports the peak of an event complete inside one chunk", () => {
    const meter = createEventSizeMeter();
    const chunk = Buffer.alloc(64 * 1024, "a");
    let size = meter.push(bytes("data: "));
    for (let i = 0; i < 20; i += 1) size = meter.push(chunk);
    expect(size).toBe(6 + 20 * 64 * 1024);
    expect(createEventSizeMeter().push(bytes(`data: ${"b".repeat(5000)}\n\ndata: c\n`))).toBe(5006);
  });
});
