import { z } from "zod";
import type { Todo } from "../ports.js";
import { defineTool } from "./tool.js";

export const TODO_MAX_ITEMS = 50;
const TODO_MAX_CHARS = 500;

const inputSchema = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1).max(TODO_MAX_CHARS).describe("What to do, as a short imperative sentence."),
        status: z.enum(["pending", "in_progress", "completed"]).describe("pending, in_progress (one at a time), or completed."),
      }),
    )
    .max(TODO_MAX_ITEMS)
    .describe("The whole list; it replaces the previous one."),
});

const MARKS: Record<Todo["status"], string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" };

export const todoWriteTool = defineTool({
  name: "TodoWrite",
  description: [
    "Replaces your task checklist, which the maintainers see live on the issue and which you keep across the session.",
    "Use it for work with several steps: send the whole list each time, keep exactly one item in_progress,",
    "and mark items completed as soon as they are done.",
  ].join("\n"),
  inputSchema,
  effects: { session: true },
  async execute(input, ctx) {
    const todos: Todo[] = input.todos.map((todo) => ({ content: todo.content, status: todo.status }));
    ctx.state.todos = todos;
    if (todos.length === 0) return { content: "Checklist cleared." };
    const list = todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`).join("\n");
    const active = todos.filter((todo) => todo.status === "in_progress").length;
    const warning = active > 1 ? `\nNote: ${active} items are in_progress; keep one in progress at a time.` : "";
    return { content: `Checklist updated:\n${list}${warning}` };
  },
});
