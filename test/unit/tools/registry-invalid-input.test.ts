// A tool call whose input the model wrote as malformed JSON reaches the registry marked (input {},
// invalidInput set by the model client): it is answered with an is_error result naming the problem,
// never run, whatever the model provider.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler, type ToolCall } from "../../../src/agent/tools/index.js";
import { createRedactor } from "../../../src/util/redact.js";
import { createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

const SECRET = "job-secret-value-123";

function registry() {
  return createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler, redact: createRedactor([SECRET]) });
}

function brokenCall(name: string, raw: string): ToolCall {
  let error = "";
  try {
    JSON.parse(raw);
  } catch (caught) {
    error = (caught as Error).message;
  }
  return { id: "call-1", name, input: {}, invalidInput: { error, raw } };
}

describe("a tool call with input that is not valid JSON", () => {
  it("is not run, and the model is told why, what it sent, and the shape to send instead", async () => {
    const raw = '{"file_path": "README.md", "old_string": "# demo", "new_string": "# "quoted" demo"}';
    const [result] = await registry().runCalls([brokenCall("Edit", raw)], h.ctx);
    expect(result).toMatchObject({ tool_use_id: "call-1", is_error: true });
    expect(result?.content).toMatch(/^Not run: your input for Edit was not valid JSON \(.+\)\./);
    expect(result?.content).toContain(raw);
    expect(result?.content).toContain("file_path (string), old_string (string), new_string (string), replace_all? (boolean)");
    expect(await h.repo.read("README.md")).toBe("# demo\n");
  });

  it("echoes only a short excerpt of a long input, with secrets masked", async () => {
    const raw = `{"file_path": "notes.md", "content": "token ${SECRET} ${"line\n".repeat(2_000)} end"`;
    const [result] = await registry().runCalls([brokenCall("Write", raw)], h.ctx);
    expect(result?.is_error).toBe(true);
    expect(result?.content.length).toBeLessThan(1_000);
    expect(result?.content).not.toContain(SECRET);
    expect(result?.content).toContain('{"file_path": "notes.md"');
    expect(result?.content).toMatch(/characters…\]/);
    await expect(h.repo.read("notes.md")).rejects.toThrow();
  });

  it("leaves the other calls of the turn to run", async () => {
    const results = await registry().runCalls([brokenCall("Edit", '{"file_path": '), { id: "call-2", name: "Read", input: { file_path: "README.md" } }], h.ctx);
    expect(results.map((r) => r.is_error)).toEqual([true, false]);
    expect(results[1]?.content).toContain("# demo");
  });
});
