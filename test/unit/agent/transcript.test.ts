import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/loop.js";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { createReplayClient } from "../../../src/agent/replay-client.js";
import { createTranscript, transcriptDir, transcriptPath } from "../../../src/agent/transcript.js";
import { BUDGETS, reply, scriptedModel, testContext, testRunner, text, toolUse } from "./helpers.js";
import { masked } from "../../fakes/masked.js";
import { createRedactor } from "../../../src/util/redact.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "tackle-transcript-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function request(messages: MessageRequest["messages"]): MessageRequest {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    system: [{ type: "text", text: "system prompt", cache_control: { type: "ephemeral" } }],
    tools: [{ name: "Echo", description: "echo", input_schema: { type: "object" } }],
    messages,
  };
}

async function lines(path: string): Promise<Array<Record<string, unknown>>> {
  const raw = await readFile(path, "utf8");
  return raw
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("transcript", () => {
  it("lives at TACKLE_HOME/transcripts/<jobId>.jsonl, with unsafe characters replaced", () => {
    expect(transcriptPath(transcriptDir("/home/t"), "octo/widgets#7-abc")).toBe("/home/t/transcripts/octo_widgets_7-abc.jsonl");
  });

  it("starts with a meta line and only ever appends", async () => {
    const writer = await createTranscript({ dir: transcriptDir(home), jobId: "job-1", model: "claude-sonnet-4-5", clock: () => 0 });
    const first = await lines(writer.path);
    expect(first).toEqual([{ type: "meta", version: 2, jobId: "job-1", model: "claude-sonnet-4-5", startedAt: "1970-01-01T00:00:00.000Z" }]);

    await writer.request(1, "turn", request([{ role: "user", content: "hi" }]));
    await writer.response(1, "turn", reply([toolUse("Echo", { text: "a" }, "t1")]));
    const before = await readFile(writer.path, "utf8");
    const sizeBefore = (await stat(writer.path)).size;

    await writer.toolResults(1, [{ tool_use_id: "t1", content: "a", is_error: false }]);
    await writer.end({ reason: "task_done", message: "ok", turns: 1, usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, costUsd: 0 });
    const after = await readFile(writer.path, "utf8");
    expect((await stat(writer.path)).size).toBeGreaterThan(sizeBefore);
    expect(after.startsWith(before)).toBe(true);
    expect((await lines(writer.path)).map((l) => l.type)).toEqual(["meta", "request", "response", "tool_results", "end"]);

    // A retried job appends a second run to the same file.
    const again = await createTranscript({ dir: transcriptDir(home), jobId: "job-1", model: "claude-sonnet-4-5" });
    await again.close();
    expect((await readFile(again.path, "utf8")).startsWith(after)).toBe(true);
    expect((await lines(again.path)).filter((l) => l.type === "meta")).toHaveLength(2);
  });

  it("stores only the new messages of each request, and system/tools only when they change", async () => {
    const writer = await createTranscript({ dir: home, jobId: "j", model: "m" });
    const u0 = { role: "user" as const, content: "task" };
    const a1 = { role: "assistant" as const, content: "reply 1" };
    const u1 = { role: "user" as const, content: [{ type: "text" as const, text: "results 1" }] };
    const a2 = { role: "assistant" as const, content: "reply 2" };
    const u2 = { role: "user" as const, content: [{ type: "text" as const, text: "results 2" }] };
    await writer.request(1, "turn", request([u0]));
    await writer.request(2, "turn", request([u0, a1, u1]));
    await writer.request(3, "turn", request([u0, a1, u1, a2, u2]));
    await writer.request(3, "compaction", { model: "m", max_tokens: 10, system: "summarise", messages: [u0] });

    const [, r1, r2, r3, c] = await lines(writer.path);
    expect(r1).toMatchObject({ turn: 1, purpose: "turn", messages_from: 0, messages_count: 1 });
    expect(r1?.body).toHaveProperty("system");
    expect(r1?.body).toHaveProperty("tools");
    expect(r2).toMatchObject({ messages_from: 1, messages_count: 3, body: { messages: [a1, u1], model: "claude-sonnet-4-5" } });
    expect(r2?.body).not.toHaveProperty("system");
    expect(r2?.body).not.toHaveProperty("tools");
    expect(r3).toMatchObject({ messages_from: 3, messages_count: 5, body: { messages: [a2, u2] } });
    // Each purpose is compared with its own previous request.
    expect(c).toMatchObject({ purpose: "compaction", messages_from: 0, body: { system: "summarise", messages: [u0] } });
  });

  it("redacts every string before writing, keeping the line valid JSON", async () => {
    const secret = 'ghs_s3cr3t"token';
    const redact = createRedactor([secret]);
    const writer = await createTranscript({ dir: home, jobId: "r", model: "m", redact });
    await writer.request(1, "turn", request([{ role: "user", content: `use ${secret}` }]));
    await writer.toolResults(1, [{ tool_use_id: "t", content: `env: TOKEN=${secret}\n`, is_error: false }]);
    const raw = await readFile(writer.path, "utf8");
    expect(raw).not.toContain("s3cr3t");
    const parsed = await lines(writer.path);
    expect(JSON.stringify(parsed[2])).toContain("TOKEN=[REDACTED]");
  });

  it("records a run that the replay client plays back to the same end", async () => {
    const script = [
      reply([text("Looking."), toolUse("Echo", { text: "a" }, "t1"), toolUse("Echo", { text: "b" }, "t2")]),
      reply([toolUse("TodoWrite", { todos: [{ content: "x", status: "completed" }] }, "t3")]),
      reply([toolUse("task_done", { summary: "recorded" }, "t4")]),
    ];
    const run = async (model: Parameters<typeof runAgent>[0]["model"], jobId: string) => {
      const transcript = await createTranscript({ dir: home, jobId, model: "claude-sonnet-4-5" });
      const result = await runAgent({
        model,
        modelName: "claude-sonnet-4-5",
        tools: testRunner(),
        ctx: testContext(),
        system: "s",
        initialMessage: masked("task"),
        budgets: BUDGETS,
        transcript,
        signal: new AbortController().signal,
      });
      await transcript.close();
      return { result, path: transcript.path };
    };

    const recorded = await run(scriptedModel(script), "rec");
    const replayed = await run(createReplayClient(recorded.path), "replay");
    expect(replayed.result).toEqual(recorded.result);
    expect(replayed.result.summary).toBe("recorded");

    const recordedLines = await lines(recorded.path);
    const replayedLines = await lines(replayed.path);
    const strip = (ls: Array<Record<string, unknown>>) => ls.filter((l) => l.type !== "meta").map((l) => JSON.stringify({ ...l, endedAt: undefined }));
    expect(strip(replayedLines)).toEqual(strip(recordedLines));
  });
});
