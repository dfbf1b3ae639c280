import { describe, expect, it } from "vitest";
import { createJsonValueMeter } from "../../../src/net/json-value-meter.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("createJsonValueMeter", () => {
  it("counts brackets and commas outside strings, through escaped quotes, across chunks", () => {
    const meter = createJsonValueMeter("body");
    expect(meter.push(bytes('{"a":[1,2,{}],"b":"x,[{\\"'))).toBe(6);
    // Still in the string: its `\"` did not end it.
    expect(meter.push(bytes(',,,",'))).toBe(7);
    expect(meter.push(bytes("[]"))).toBe(8);
  });

  it("ends a string at a line break, which JSON strings cannot hold", () => {
    const meter = createJsonValueMeter("body");
    meter.push(bytes('"open\n'));
    expect(meter.push(bytes("[,"))).toBe(2);
  });

  it("starts again at each event of an event stream, and only there", () => {
    const meter = createJsonValueMeter("event");
    expect(meter.push(bytes("event: message\ndata: [1,2,3]\r\n"))).toBe(3);
    expect(meter.push(bytes("data: [1]\r\n\r\n"))).toBe(4);
    expect(meter.push(bytes("data: [1,2]\n\n"))).toBe(2);
    const body = createJsonValueMeter("body");
    expect(body.push(bytes("[1,2]\n\n[3]"))).toBe(3);
  });

  it("starts again at each line feed of newline-delimited JSON, not at a carriage return", () => {
    const meter = createJsonValueMeter("line");
    expect(meter.push(bytes("[1,2,3]\n[1]"))).toBe(3);
    expect(meter.push(bytes(",\r,\r,\n"))).toBe(4);
    expect(meter.push(bytes("[1,2]\n"))).toBe(2);
  });
});
