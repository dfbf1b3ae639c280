import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPolicyEngine, createToolRegistry, denyingApprovalHandler, memoryReadTool, memoryWriteTool } from "../../../src/agent/tools/index.js";
import { createMemoryStore } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createRedactor } from "../../../src/util/redact.js";
import { createMemoryPort } from "../../../src/worker/memory-port.js";
import { createHarness, type Harness } from "./helpers.js";

let h: Harness;
let home: string;
beforeEach(async () => {
  h = await createHarness();
  home = await mkdtemp(path.join(tmpdir(), "tackle-memory-tools-"));
});
afterEach(async () => {
  await h.repo.cleanup();
  await rm(home, { recursive: true, force: true });
});

const call = (name: string, input: unknown, id = "c1") => [{ id, name, input }];

describe("MemoryRead and MemoryWrite", () => {
  it("saves, lists the index fenced as data, reads a body, and deletes without a description", async () => {
    const memory = createMemoryPort({
      store: createMemoryStore({ home, logger: silentLogger }),
      repoKey: "github.com/1296269",
      jobId: "job-1",
      actor: "alice",
      redact: createRedactor([]),
      clock: () => Date.parse("2026-01-02T03:04:05.000Z"),
    });
    const ctx = { ...h.ctx, memory };
    const registry = createToolRegistry([memoryReadTool, memoryWriteTool], { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const run = async (name: string, input: unknown) => (await registry.runCalls(call(name, input), ctx))[0]!;

    expect((await run("MemoryWrite", { name: "test-cmd", content: "npm test -- --run" })).content).toMatch(/needs a description/);
    expect(await run("MemoryWrite", { name: "test-cmd", description: "how to run the tests", content: "npm test -- --run" })).toMatchObject({
      content: 'Saved "test-cmd".',
      is_error: false,
    });
    const index = await run("MemoryRead", {});
    expect(index.content).toBe(
      '<repository_memory trust="earlier-jobs">\n- test-cmd: how to run the tests (job job-1, @alice, 2026-01-02T03:04:05.000Z)\n</repository_memory>',
    );
    expect((await run("MemoryRead", { name: "test-cmd" })).content).toContain("npm test -- --run");
    expect(await run("MemoryWrite", { name: "test-cmd", content: "" })).toMatchObject({ content: 'Deleted "test-cmd".', is_error: false });
    expect((await run("MemoryRead", {})).content).toBe("The repository has no memories yet.");
  });
});
