import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createApprovalGate,
  createTaskTool,
  createToolRegistry,
  defineTool,
  denyingApprovalHandler,
  type ApprovalHandler,
  type PolicyEngine,
  type ToolCall,
  type ToolContext,
} from "../../../src/agent/tools/index.js";
import { createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const allowAll: PolicyEngine = { check: async () => ({ action: "allow" }), noteOutsideText: () => undefined };
const askAll = (approvalKey?: string): PolicyEngine => ({
  check: async () => ({ action: "ask", reason: "a reason", ...(approvalKey === undefined ? {} : { approvalKey }) }),
  noteOutsideText: () => undefined,
});
const calls = (...items: Array<[string, unknown]>): ToolCall[] => items.map(([name, input], i) => ({ id: `c${i}`, name, input }));

interface Span {
  type: string;
  start: number;
  end: number;
  path: string | undefined;
}

/** Task over a stand-in subagent port that sleeps 150 ms and records when each call ran and where it sits. */
function taskWithSpans(spans: Span[]): { ctx: (base: ToolContext) => ToolContext; tool: ReturnType<typeof createTaskTool> } {
  const tool = createTaskTool([
    { name: "explore", description: "reads", readOnly: true },
    { name: "general-purpose", description: "writes", readOnly: false },
  ]);
  return {
    tool,
    ctx: (base) => ({
      ...base,
      callPath: "main/4",
      subagents: {
        async run(request, ctx) {
          const start = performance.now();
          await new Promise((resolve) => setTimeout(resolve, 150));
          spans.push({ type: request.type, start, end: performance.now(), path: ctx.callPath });
          return { content: `report of ${request.description}` };
        },
      },
    }),
  };
}

describe("the registry with subagents", () => {
  it("runs read-only Task calls of one turn in parallel, a writing one alone, and gives each call its place in the tree", async () => {
    const spans: Span[] = [];
    const { tool, ctx } = taskWithSpans(spans);
    const registry = createToolRegistry([tool], { policy: allowAll, approval: denyingApprovalHandler });
    const results = await registry.runCalls(
      calls(
        ["Task", { description: "a", prompt: "find a", subagent_type: "explore" }],
        ["Task", { description: "b", prompt: "find b", subagent_type: "explore" }],
        ["Task", { description: "c", prompt: "change c" }],
      ),
      ctx(h.ctx),
    );
    expect(results.map((result) => result.content)).toEqual(["report of a", "report of b", "report of c"]);
    const [a, b, c] = [...spans].sort((x, y) => String(x.path).localeCompare(String(y.path)));
    expect([a?.path, b?.path, c?.path]).toEqual(["main/4/1", "main/4/2", "main/4/3"]);
    expect(b!.start).toBeLessThan(a!.end);
    // The general-purpose one (the default type) may write: it starts after both reads end.
    expect(c!.start).toBeGreaterThanOrEqual(Math.max(a!.end, b!.end));
  });

  it("offers more tools after the first ones, and never twice", async () => {
    const echo = (name: string) =>
      defineTool({
        name,
        description: `${name} echoes`,
        inputSchema: z.object({ text: z.string().describe("text") }),
        effects: { session: true },
        execute: async (input) => ({ content: `${name}: ${input.text}` }),
      });
    const registry = createToolRegistry([echo("One")], { policy: allowAll, approval: denyingApprovalHandler });
    const [unknown] = await registry.runCalls(calls(["Two", { text: "x" }]), h.ctx);
    expect(unknown?.is_error).toBe(true);
    expect(registry.offer([echo("Two"), echo("One")])).toEqual(["Two"]);
    expect(registry.definitions().map((definition) => definition.name)).toEqual(["One", "Two"]);
    const [two] = await registry.runCalls(calls(["Two", { text: "x" }]), h.ctx);
    expect(two?.content).toBe("Two: x");
    expect(registry.offer([echo("Two")])).toEqual([]);
  });
});

describe("the approval gate", () => {
  /** A handler whose answers the test gives, recording which questions were open at once. */
  function manualHandler() {
    const pending: Array<{ tool: string; answer: (approved: boolean) => void }> = [];
    let open = 0;
    let maxOpen = 0;
    const handler: ApprovalHandler = {
      request: (question) =>
        new Promise((resolve) => {
          open++;
          maxOpen = Math.max(maxOpen, open);
          pending.push({
            tool: question.tool,
            answer: (approved) => {
              open--;
              resolve({ approved });
            },
          });
        }),
    };
    return { handler, pending, maxOpen: () => maxOpen };
  }

  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

  it("asks parallel calls' questions one at a time, so a second never replaces the first", async () => {
    const manual = manualHandler();
    const reader = defineTool({
      name: "Peek",
      description: "reads",
      inputSchema: z.object({ id: z.string().describe("id") }),
      effects: { git: "read" },
      execute: async (input) => ({ content: `peeked ${input.id}` }),
    });
    const registry = createToolRegistry([reader], { policy: askAll(), approval: manual.handler });
    const running = registry.runCalls(calls(["Peek", { id: "a" }], ["Peek", { id: "b" }]), h.ctx);
    await tick();
    expect(manual.pending).toHaveLength(1);
    manual.pending[0]!.answer(true);
    await tick();
    expect(manual.pending).toHaveLength(2);
    manual.pending[1]!.answer(false);
    const results = await running;
    expect(results[0]?.content).toBe("peeked a");
    expect(results[1]?.is_error).toBe(true);
    expect(manual.maxOpen()).toBe(1);
  });

  it("does not ask again for a key approved while the question waited in line, across registries sharing it", async () => {
    const manual = manualHandler();
    const gate = createApprovalGate(manual.handler);
    const tool = defineTool({
      name: "Big",
      description: "writes",
      inputSchema: z.object({ id: z.string().describe("id") }),
      effects: { session: true },
      execute: async (input) => ({ content: `ran ${input.id}` }),
    });
    const parent = createToolRegistry([tool], { policy: askAll("diff-size"), approval: manual.handler, gate });
    const child = createToolRegistry([tool], { policy: askAll("diff-size"), approval: manual.handler, gate });
    const first = parent.runCalls(calls(["Big", { id: "p" }]), h.ctx);
    const second = child.runCalls(calls(["Big", { id: "c" }]), h.ctx);
    await tick();
    expect(manual.pending).toHaveLength(1);
    manual.pending[0]!.answer(true);
    expect((await first)[0]?.content).toBe("ran p");
    expect((await second)[0]?.content).toBe("ran c");
    expect(manual.pending).toHaveLength(1);
  });
});

describe("tool groups", () => {
  it("replaces a group's tools, keeping them after the others in the given order, also when a tool is set again as a new object", async () => {
    const make = (name: string) =>
      defineTool({
        name,
        description: name,
        inputSchema: z.object({ text: z.string().describe("text") }),
        effects: { callsMcp: { qualified: `s__${name}` } },
        execute: async () => ({ content: name }),
      });
    const registry = createToolRegistry([make("Core")], { policy: allowAll, approval: denyingApprovalHandler });
    expect(registry.stableCount).toBe(1);
    registry.setGroup("mcp", [make("mcp__a")]);
    registry.setGroup("mcp", [make("mcp__b"), make("mcp__a")]);
    expect(registry.definitions().map((definition) => definition.name)).toEqual(["Core", "mcp__b", "mcp__a"]);
    registry.setGroup("mcp", [make("mcp__b")]);
    expect(registry.definitions().map((definition) => definition.name)).toEqual(["Core", "mcp__b"]);
    const [gone] = await registry.runCalls(calls(["mcp__a", { text: "x" }]), h.ctx);
    expect(gone?.is_error).toBe(true);
    expect(gone?.content).toMatch(/^Unknown tool "mcp__a"/);
  });
});
