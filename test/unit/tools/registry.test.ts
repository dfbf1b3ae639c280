import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { TackleError } from "../../../src/errors/index.js";
import {
  coreTools,
  createPolicyEngine,
  createToolRegistry,
  defineTool,
  denyingApprovalHandler,
  type ApprovalHandler,
  type PolicyEngine,
  type Tool,
  type ToolEffects,
  type ToolCall,
} from "../../../src/agent/tools/index.js";
import { createRedactor } from "../../../src/util/redact.js";
import { createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const allowAll: PolicyEngine = { check: async () => ({ action: "allow" }), noteOutsideText: () => undefined };

interface Span {
  id: string;
  start: number;
  end: number;
}

/** Effects that only read, and effects that change something, for tools that touch nothing real. */
const READS: ToolEffects = { git: "read" };
const CHANGES: ToolEffects = { session: true };

/** A tool that sleeps `ms` and records when it ran. */
function sleeper(name: string, effects: ToolEffects, spans: Span[]): Tool {
  return defineTool({
    name,
    description: "sleeps",
    inputSchema: z.object({ id: z.string().describe("id"), ms: z.number().describe("ms") }),
    effects,
    async execute(input) {
      const start = performance.now();
      await new Promise((resolve) => setTimeout(resolve, input.ms));
      spans.push({ id: input.id, start, end: performance.now() });
      return { content: `done ${input.id}` };
    },
  });
}

const calls = (...items: Array<[string, unknown]>): ToolCall[] => items.map(([name, input], i) => ({ id: `c${i}`, name, input }));

describe("createToolRegistry", () => {
  it("runs the read calls of one turn in parallel and returns results in call order", async () => {
    const spans: Span[] = [];
    const registry = createToolRegistry([sleeper("SlowRead", READS, spans)], { policy: allowAll, approval: denyingApprovalHandler });
    const started = performance.now();
    const results = await registry.runCalls(
      calls(["SlowRead", { id: "a", ms: 300 }], ["SlowRead", { id: "b", ms: 100 }], ["SlowRead", { id: "c", ms: 200 }]),
      h.ctx,
    );
    const elapsed = performance.now() - started;
    expect(results.map((result) => result.content)).toEqual(["done a", "done b", "done c"]);
    expect(results.map((result) => result.tool_use_id)).toEqual(["c0", "c1", "c2"]);
    // Together they take about as long as the slowest, not the sum (600 ms).
    expect(elapsed).toBeLessThan(500);
    const a = spans.find((span) => span.id === "a") as Span;
    const b = spans.find((span) => span.id === "b") as Span;
    expect(b.start).toBeLessThan(a.end);
  });

  it("runs write calls one at a time, in order, between batches of reads", async () => {
    const spans: Span[] = [];
    const registry = createToolRegistry([sleeper("SlowRead", READS, spans), sleeper("SlowWrite", CHANGES, spans)], {
      policy: allowAll,
      approval: denyingApprovalHandler,
    });
    await registry.runCalls(
      calls(["SlowRead", { id: "r1", ms: 100 }], ["SlowWrite", { id: "w1", ms: 100 }], ["SlowWrite", { id: "w2", ms: 50 }], ["SlowRead", { id: "r2", ms: 50 }]),
      h.ctx,
    );
    const byId = Object.fromEntries(spans.map((span) => [span.id, span]));
    expect(byId.w1!.start).toBeGreaterThanOrEqual(byId.r1!.end);
    expect(byId.w2!.start).toBeGreaterThanOrEqual(byId.w1!.end);
    expect(byId.r2!.start).toBeGreaterThanOrEqual(byId.w2!.end);
  });

  it("serves a repeated read from cache until a write runs", async () => {
    const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    await h.repo.write("a.txt", "first\n");
    const [first] = await registry.runCalls(calls(["Read", { file_path: "a.txt" }]), h.ctx);
    expect(first?.content).toBe("     1\tfirst");
    // Changed behind the registry's back: the cache still answers (proving it is a cache hit).
    await writeFile(path.join(h.repo.root, "a.txt"), "second\n");
    const [cached] = await registry.runCalls(calls(["Read", { file_path: "a.txt" }]), h.ctx);
    expect(cached?.content).toBe("     1\tfirst");
    // The key is the canonical input: key order does not matter, other values do.
    await registry.runCalls(calls(["Read", { file_path: "a.txt", limit: 5 }]), h.ctx);
    await writeFile(path.join(h.repo.root, "a.txt"), "second!\n");
    const [reordered] = await registry.runCalls(calls(["Read", { limit: 5, file_path: "a.txt" }]), h.ctx);
    expect(reordered?.content).toBe("     1\tsecond");
    const results = await registry.runCalls(
      calls(["Edit", { file_path: "a.txt", old_string: "second!", new_string: "third" }], ["Read", { file_path: "a.txt" }]),
      h.ctx,
    );
    expect(results[0]?.is_error).toBe(false);
    expect(results[1]?.content).toBe("     1\tthird");
  });

  it("denies a write to a protected path", async () => {
    const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const [result] = await registry.runCalls(calls(["Write", { file_path: ".github/workflows/ci.yml", content: "on: push" }]), h.ctx);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toMatch(/^Denied: \.github\/workflows\/ci\.yml is a protected path/);
  });

  it("denies a catastrophic command", async () => {
    const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const [result] = await registry.runCalls(calls(["Bash", { command: "rm -rf / --no-preserve-root" }]), h.ctx);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain("Denied: refused");
  });

  it("truncates a 50 MB command output, keeping head and tail", async () => {
    const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const [result] = await registry.runCalls(calls(["Bash", { command: "head -c 50000000 /dev/zero | tr '\\0' a" }]), h.ctx);
    expect(result?.is_error).toBe(false);
    expect(result?.content.length).toBeLessThanOrEqual(30_000);
    expect(result?.content).toMatch(/^aaaa/);
    expect(result?.content).toContain("omitted from the middle; redirect the output to a file and Read or Grep it");
    expect(result?.content).toContain("49000000 more bytes of output were dropped; exit code 0]");
  });

  it("honours maxResultChars", async () => {
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler, maxResultChars: 2_000 });
    await h.repo.write("big.txt", Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n"));
    const [result] = await registry.runCalls(calls(["Read", { file_path: "big.txt" }]), h.ctx);
    expect(result?.content.length).toBeLessThanOrEqual(2_000);
    expect(result?.content).toContain("use Read with offset and limit");
    expect(result?.content).toContain("   499\tline 498");
  });

  it("turns malformed input into an error naming the problem and the expected fields", async () => {
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler });
    const [result] = await registry.runCalls(calls(["Read", { file_path: 3 }]), h.ctx);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toBe(
      "Invalid input for Read: file_path: Invalid input: expected string, received number. " +
        "Expected: { file_path (string), offset? (integer), limit? (integer) }.",
    );
    const [missing] = await registry.runCalls(calls(["Grep", {}]), h.ctx);
    expect(missing?.content).toContain("pattern:");
    expect(missing?.content).toContain('output_mode? ("content" | "files_with_matches" | "count")');
  });

  it("answers an unknown tool with the list of available tools", async () => {
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler });
    const [result] = await registry.runCalls(calls(["WebSearch", { q: "x" }]), h.ctx);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toContain('Unknown tool "WebSearch". Available tools: Read, Write, Edit, Glob, Grep, Bash');
  });

  it("redacts secrets in every result", async () => {
    const registry = createToolRegistry(coreTools(), {
      policy: allowAll,
      approval: denyingApprovalHandler,
      redact: createRedactor(["job-secret-value-123"]),
    });
    const token = `ghs_${"x1Y2".repeat(9)}`;
    await h.repo.write("config.txt", `token: ${token}\nother: job-secret-value-123\n`);
    const results = await registry.runCalls(
      calls(["Read", { file_path: "config.txt" }], ["Grep", { pattern: "token", output_mode: "content" }], ["Bash", { command: "cat config.txt" }]),
      h.ctx,
    );
    for (const result of results) {
      expect(result.content).not.toContain(token);
      expect(result.content).not.toContain("job-secret-value-123");
    }
    expect(results[0]?.content).toBe("     1\ttoken: [REDACTED:github-token]\n     2\tother: [REDACTED]");
  });

  it("turns a thrown error into an is_error result", async () => {
    const thrower = (error: unknown) =>
      defineTool({
        name: "Boom",
        description: "throws",
        inputSchema: z.object({}),
        effects: READS,
        execute: async () => {
          throw error;
        },
      });
    const plain = createToolRegistry([thrower(new Error("disk on fire"))], { policy: allowAll, approval: denyingApprovalHandler });
    expect((await plain.runCalls(calls(["Boom", {}]), h.ctx))[0]).toEqual({ tool_use_id: "c0", content: "tool Boom failed: disk on fire", is_error: true });
    const typed = createToolRegistry([thrower(new TackleError("git", "the index is locked"))], { policy: allowAll, approval: denyingApprovalHandler });
    expect((await typed.runCalls(calls(["Boom", {}]), h.ctx))[0]?.content).toBe("the index is locked");
  });

  it("asks for approval: a denial goes back to the model, an approval runs the call", async () => {
    const asking: PolicyEngine = { check: async () => ({ action: "ask", reason: "it installs packages" }), noteOutsideText: () => undefined };
    const denied = createToolRegistry(coreTools(), { policy: asking, approval: denyingApprovalHandler });
    const [refused] = await denied.runCalls(calls(["Bash", { command: "echo hi" }]), h.ctx);
    expect(refused?.is_error).toBe(true);
    expect(refused?.content).toContain("needs a maintainer's approval (it installs packages), which is not available in this run");

    const questions: unknown[] = [];
    const approving: ApprovalHandler = {
      request: async (question) => {
        questions.push(question);
        return { approved: true, by: "maintainer" };
      },
    };
    const approved = createToolRegistry(coreTools(), { policy: asking, approval: approving });
    const [ran] = await approved.runCalls(calls(["Bash", { command: "echo hi" }]), h.ctx);
    expect(ran?.content).toBe("hi\n[exit code 0]");
    expect(questions).toEqual([{ tool: "Bash", input: { command: "echo hi" }, reason: "it installs packages" }]);
  });

  it("asks once per approval key", async () => {
    const keyed: PolicyEngine = { check: async () => ({ action: "ask", reason: "big diff", approvalKey: "diff-size" }), noteOutsideText: () => undefined };
    let asked = 0;
    const registry = createToolRegistry(coreTools(), {
      policy: keyed,
      approval: {
        request: async () => {
          asked += 1;
          return { approved: true };
        },
      },
    });
    await registry.runCalls(calls(["Write", { file_path: "a.txt", content: "a" }], ["Write", { file_path: "b.txt", content: "b" }]), h.ctx);
    expect(asked).toBe(1);
  });

  it("runs the tool's own checkArgs after the policy", async () => {
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler });
    const [result] = await registry.runCalls(calls(["Bash", { command: "true", timeout: 700_000 }]), h.ctx);
    expect(result?.content).toBe("Denied: timeout is in milliseconds; 700000 ms exceeds the 600000 ms maximum");
  });

  it("stops running calls once the signal is aborted", async () => {
    const spans: Span[] = [];
    const abortingTool = defineTool({
      name: "Abort",
      description: "aborts the job",
      inputSchema: z.object({}),
      effects: CHANGES,
      execute: async () => {
        h.abort.abort();
        return { content: "aborted" };
      },
    });
    const registry = createToolRegistry([abortingTool, sleeper("SlowWrite", CHANGES, spans)], { policy: allowAll, approval: denyingApprovalHandler });
    const results = await registry.runCalls(calls(["Abort", {}], ["SlowWrite", { id: "w", ms: 10 }]), h.ctx);
    expect(results).toHaveLength(2);
    expect(results[1]).toEqual({ tool_use_id: "c1", content: "Not run: the job was cancelled.", is_error: true });
    expect(spans).toEqual([]);
  });

  it("offers byte-stable definitions in a fixed order, with plain JSON schemas", () => {
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler });
    const first = registry.definitions();
    expect(first.map((definition) => definition.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "Glob",
      "Grep",
      "Bash",
      "TodoWrite",
      "NoteWrite",
      "GetIssue",
      "ReportToIssue",
      "git_status",
      "git_diff",
      "git_log",
      "git_commit",
      "git_branch",
      "create_pull_request",
      "task_done",
    ]);
    for (const definition of first) {
      expect(definition.input_schema.type).toBe("object");
      expect(definition.input_schema).not.toHaveProperty("$schema");
      expect(JSON.stringify(definition)).not.toContain("9007199254740991");
    }
    const read = first[0]!;
    expect(read.input_schema).toMatchObject({
      properties: { file_path: { type: "string", description: expect.any(String) }, offset: { type: "integer", minimum: 1 } },
      required: ["file_path"],
    });
    // A caller that decorates its copy (e.g. cache_control) does not change the next one.
    (first[16] as unknown as Record<string, unknown>).cache_control = { type: "ephemeral" };
    expect(JSON.stringify(registry.definitions())).toBe(
      JSON.stringify(createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler }).definitions()),
    );
  });

  it("describes every field of every core tool", () => {
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler });
    for (const definition of registry.definitions()) {
      const properties = (definition.input_schema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(properties)) {
        expect(schema.description, `${definition.name}.${field}`).toBeTruthy();
      }
    }
  });

  it("refuses duplicate tool names", () => {
    expect(() => createToolRegistry([...coreTools(), coreTools()[0]!], { policy: allowAll, approval: denyingApprovalHandler })).toThrow(/duplicate/);
  });

  it("refuses a tool that declares no effects, or names an input field it does not take", () => {
    const tool = (effects: unknown) =>
      defineTool({
        name: "Mystery",
        description: "?",
        inputSchema: z.object({ target: z.string().describe("t") }),
        effects: effects as ToolEffects,
        execute: async () => ({ content: "" }),
      });
    const register = (effects: unknown) => () => createToolRegistry([tool(effects)], { policy: allowAll, approval: denyingApprovalHandler });
    expect(register(undefined)).toThrow("tool Mystery declares no effects");
    expect(register({})).toThrow("tool Mystery declares no effects");
    expect(register({ writes: undefined })).toThrow("tool Mystery declares no effects");
    expect(register({ writes: { path: "file_path" } })).toThrow('name the input field "file_path"');
    expect(register({ writes: { path: "target" } })).not.toThrow();
  });
});
