import { describe, expect, it } from "vitest";
import { createOutputCollector } from "../../../src/workspace/output-collector.js";

describe("output collector", () => {
  it("keeps everything under the cap", () => {
    const collector = createOutputCollector(100);
    collector.push(Buffer.from("hello "));
    collector.push(Buffer.from("world"));
    expect(collector.text()).toBe("hello world");
    expect(collector.droppedBytes).toBe(0);
    expect(collector.totalBytes).toBe(11);
  });

  it("keeps the head and the tail and counts the middle", () => {
    const collector = createOutputCollector(10);
    for (let i = 0; i < 100; i += 1) collector.push(Buffer.from(String(i % 10)));
    expect(collector.totalBytes).toBe(100);
    expect(collector.droppedBytes).toBe(90);
    expect(collector.text()).toBe("01234\n[... 90 bytes of output omitted ...]\n56789");
  });

  it("handles chunks larger than the whole cap", () => {
    const collector = createOutputCollector(8);
    collector.push(Buffer.from(`${"a".repeat(1000)}END!`));
    expect(collector.droppedBytes).toBe(1004 - 8);
    expect(collector.text()).toMatch(/^aaaa\n\[\.\.\. 996 bytes of output omitted \.\.\.\]\nEND!$/);
  });
});
