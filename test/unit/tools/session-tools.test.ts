import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("TodoWrite", () => {
  it("replaces the checklist", async () => {
    h.ctx.state.todos = [{ content: "old", status: "pending" }];
    const result = await callTool(h.ctx, "TodoWrite", {
      todos: [
        { content: "Read the code", status: "completed" },
        { content: "Fix the bug", status: "in_progress" },
        { content: "Add a test", status: "pending" },
      ],
    });
    expect(result.is_error).toBe(false);
    expect(result.content).toBe("Checklist updated:\n[x] Read the code\n[~] Fix the bug\n[ ] Add a test");
    expect(h.ctx.state.todos).toEqual([
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress" },
      { content: "Add a test", status: "pending" },
    ]);
  });

  it("warns, without failing, about several items in progress", async () => {
    const result = await callTool(h.ctx, "TodoWrite", {
      todos: [
        { content: "a", status: "in_progress" },
        { content: "b", status: "in_progress" },
      ],
    });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("2 items are in_progress");
    expect(h.ctx.state.todos).toHaveLength(2);
  });

  it("refuses an unknown status", async () => {
    const result = await callTool(h.ctx, "TodoWrite", { todos: [{ content: "a", status: "done" }] });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("todos.0.status");
    expect(h.ctx.state.todos).toEqual([]);
  });
});

describe("NoteWrite", () => {
  it("replaces the notes", async () => {
    h.ctx.state.notes = ["old"];
    const result = await callTool(h.ctx, "NoteWrite", { notes: ["npm test runs vitest", "the bug is in parse.ts"] });
    expect(result.content).toBe("Notes saved (2).");
    expect(h.ctx.state.notes).toEqual(["npm test runs vitest", "the bug is in parse.ts"]);
  });

  it("bounds the count and length", async () => {
    const tooMany = await callTool(h.ctx, "NoteWrite", { notes: Array.from({ length: 31 }, (_, i) => `n${i}`) });
    expect(tooMany.is_error).toBe(true);
    const tooLong = await callTool(h.ctx, "NoteWrite", { notes: ["x".repeat(1001)] });
    expect(tooLong.is_error).toBe(true);
  });
});

describe("task_done", () => {
  it("sets state.done", async () => {
    const result = await callTool(h.ctx, "task_done", { summary: "Fixed the parser.", files_changed: ["src/parse.ts"] });
    expect(result.is_error).toBe(false);
    expect(h.ctx.state.done).toEqual({ summary: "Fixed the parser.", filesChanged: ["src/parse.ts"] });
  });

  it("defaults files_changed to an empty list", async () => {
    await callTool(h.ctx, "task_done", { summary: "Nothing to change." });
    expect(h.ctx.state.done).toEqual({ summary: "Nothing to change.", filesChanged: [] });
  });
});
