import { describe, expect, it } from "vitest";
import { buildCompactionRequest, compactedHistory, planCompaction, summaryOf } from "../../../src/agent/compaction.js";
import type { ModelMessageParam } from "../../../src/agent/model-client.js";
import { reply, text } from "./helpers.js";

function history(turns: number): ModelMessageParam[] {
  const messages: ModelMessageParam[] = [{ role: "user", content: [{ type: "text", text: "task" }] }];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `t${t}`, name: "Read", input: { file_path: `f${t}` } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${t}`, content: `contents ${t} ${"z".repeat(5000)}` }] });
  }
  return messages;
}

describe("compaction", () => {
  it("keeps the newest turns whole, each tool_use with its tool_result", () => {
    const plan = planCompaction(history(6), 3);
    expect(plan?.head).toHaveLength(7);
    expect(plan?.tail).toHaveLength(6);
    expect(plan?.tail[0]?.role).toBe("assistant");
    const ids = (messages: ModelMessageParam[], type: string) =>
      messages.flatMap((m) =>
        typeof m.content === "string"
          ? []
          : m.content.flatMap((b) => (b.type === type ? [b.type === "tool_use" ? b.id : b.type === "tool_result" ? b.tool_use_id : ""] : [])),
      );
    expect(ids(plan?.tail ?? [], "tool_use")).toEqual(ids(plan?.tail ?? [], "tool_result"));
    expect(ids(plan?.head ?? [], "tool_use")).toEqual(ids(plan?.head ?? [], "tool_result"));
  });

  it("keeps fewer turns when the history is short, and gives up when there is nothing older", () => {
    expect(planCompaction(history(2), 3)?.tail).toHaveLength(2);
    expect(planCompaction(history(1), 3)).toBeNull();
  });

  it("asks for the summary without tools, with long blocks cut", () => {
    const request = buildCompactionRequest({ model: "claude-haiku-4-5", head: history(2), maxBlockChars: 100 });
    expect(request.tools).toBeUndefined();
    expect(request.model).toBe("claude-haiku-4-5");
    const prompt = JSON.stringify(request.messages);
    expect(prompt).toContain("tool call Read");
    expect(prompt).toContain("more characters cut");
    expect(prompt).not.toContain("z".repeat(200));
  });

  it("cuts an over-long history in the middle, keeping the task and the latest turns", () => {
    const request = buildCompactionRequest({ model: "claude-haiku-4-5", head: history(20), maxBlockChars: 1_000, maxChars: 5_000 });
    const prompt = JSON.stringify(request.messages);
    expect(prompt).toContain("task");
    expect(prompt).toContain('tool call Read {\\"file_path\\":\\"f20\\"}');
    expect(prompt).not.toContain("f10");
    expect(prompt).toMatch(/characters \(\d+ lines\) omitted from the middle/);
    expect(prompt.length).toBeLessThan(8_000);
  });

  it("rebuilds the history as task + summary, then the kept turns", () => {
    const tail = history(3).slice(-2);
    const next = compactedHistory("task", summaryOf(reply([text("did things")])), tail);
    expect(next).toHaveLength(3);
    expect(JSON.stringify(next[0])).toContain("did things");
    expect(next.slice(1)).toEqual(tail);
    expect(summaryOf(reply([]))).toMatch(/empty/);
  });
});
