// A tool call, or the policy step before it, that waited on something that did not end (the diff
// estimate's host read of a FIFO, a sandboxed git that hangs, a tool's own wait) held the job past its
// timeout: the loop looked at the deadline only between turns, and the policy check could not be
// aborted at all. The calls of a turn now get the job's signal joined with its deadline
// (src/agent/deadline-signal.ts), and the policy engine gives way when that signal aborts.
import { masked } from "../fakes/masked.js";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/loop.js";
import { z } from "zod";
import { createPolicyEngine, createToolRegistry, denyingApprovalHandler } from "../../src/agent/tools/index.js";
import { defineTool } from "../../src/agent/tools/tool.js";
import { writeTool } from "../../src/agent/tools/write.js";
import { BUDGETS, reply, scriptedModel, toolUse } from "../unit/agent/helpers.js";
import { createHarness } from "../unit/tools/helpers.js";

/** Resolves never; rejects when `signal` aborts. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));

async function runToTheDeadline(tools: Parameters<typeof createToolRegistry>[0], call: ReturnType<typeof toolUse>, hangGit = false) {
  const h = await createHarness();
  try {
    const ctx = hangGit ? { ...h.ctx, git: { ...h.ctx.git, diffStat: () => untilAborted(new AbortController().signal) } } : h.ctx;
    const registry = createToolRegistry(tools, { policy: createPolicyEngine({ maxDiffLines: 10 }), approval: denyingApprovalHandler });
    const model = scriptedModel([reply([call])]);
    const result = await runAgent({
      model,
      modelName: "claude-sonnet-4-5",
      tools: registry,
      ctx,
      system: "test",
      initialMessage: masked("go"),
      // The deadline is a moment away: the call below outlives it unless something ends it.
      budgets: { ...BUDGETS, deadline: Date.now() + 50 },
      signal: h.abort.signal,
    });
    return result;
  } finally {
    await h.repo.cleanup();
  }
}

describe("the job's deadline holds what a tool call waits on", () => {
  it("a policy step waiting on git that never answers (the diff estimate of a Write) ends at the deadline", async () => {
    const result = await runToTheDeadline([writeTool], toolUse("Write", { file_path: "notes.txt", content: "a\n" }), true);
    expect(result.reason).toBe("deadline");
  });

  it("a tool waiting on its signal ends at the deadline", async () => {
    const wait = defineTool({
      name: "Wait",
      description: "Waits.",
      inputSchema: z.object({ path: z.string().optional().describe("Unused.") }),
      effects: { reads: { path: "path" } },
      execute: (_input, ctx) => untilAborted(ctx.signal),
    });
    const result = await runToTheDeadline([wait], toolUse("Wait", {}));
    expect(result.reason).toBe("deadline");
  });
});
