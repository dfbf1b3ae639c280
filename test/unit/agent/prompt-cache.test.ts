import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/loop.js";
import type { MessageRequest } from "../../../src/agent/model-client.js";
import { buildSystemPrompt } from "../../../src/agent/prompt/build-system-prompt.js";
import { STATE_BLOCK_TAG } from "../../../src/agent/prompt/render-state.js";
import { BUDGETS, reply, scriptedModel, testContext, testRunner, text, toolUse, type Script } from "./helpers.js";
import { masked } from "../../fakes/masked.js";

/**
 * One request flattened the way the prompt cache sees it: tools, then system, then each message's
 * blocks. `key` is the block without its cache_control marker (the cache matches content; the marker
 * only says where to write), `marked` whether it carries a breakpoint.
 */
interface Segment {
  key: string;
  marked: boolean;
  tokens: number;
}

function segments(request: MessageRequest): Segment[] {
  const out: Segment[] = [];
  const push = (where: string, block: unknown) => {
    const marked = typeof block === "object" && block !== null && "cache_control" in block;
    const key = where + JSON.stringify(block, (k, v: unknown) => (k === "cache_control" ? undefined : v));
    out.push({ key, marked, tokens: Math.ceil(key.length / 4) });
  };
  for (const tool of request.tools ?? []) push("tool:", tool);
  const system = typeof request.system === "string" ? [{ type: "text", text: request.system }] : (request.system ?? []);
  for (const block of system) push("system:", block);
  request.messages.forEach((message, index) => {
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of blocks) push(`${index}:${message.role}:`, block);
  });
  return out;
}

function lastMarked(segs: Segment[]): number {
  return segs.map((s) => s.marked).lastIndexOf(true);
}

/**
 * A model of Anthropic's prompt cache: a breakpoint writes the hash of the prefix ending there; a
 * request reads the longest prefix ending at one of its breakpoints, or at one of the 20 blocks
 * before a breakpoint, that was written before.
 */
function simulateCache(requests: MessageRequest[]): { read: number; write: number; uncached: number } {
  const written = new Set<string>();
  const totals = { read: 0, write: 0, uncached: 0 };
  for (const request of requests) {
    const segs = segments(request);
    const prefixHashes: string[] = [];
    const hash = createHash("sha256");
    for (const seg of segs) {
      hash.update(seg.key);
      prefixHashes.push(hash.copy().digest("hex"));
    }
    const marks = segs.flatMap((s, i) => (s.marked ? [i] : []));
    let hit = -1;
    for (const mark of marks) {
      for (let i = mark; i >= Math.max(0, mark - 20); i--) {
        if (written.has(prefixHashes[i] as string)) {
          hit = Math.max(hit, i);
          break;
        }
      }
    }
    const last = lastMarked(segs);
    segs.forEach((seg, i) => {
      if (i <= hit) totals.read += seg.tokens;
      else if (i <= last) totals.write += seg.tokens;
      else totals.uncached += seg.tokens;
    });
    for (const mark of marks) written.add(prefixHashes[mark] as string);
  }
  return totals;
}

function thirtyTurnScript(): Script {
  const script: Script = [];
  for (let turn = 1; turn < 30; turn++) {
    const calls = [toolUse("Echo", { text: `output of step ${turn}: ${"log line\n".repeat(20 + (turn % 7) * 15)}` })];
    if (turn % 3 === 0) calls.push(toolUse("Echo", { text: `second result ${turn}` }));
    if (turn % 4 === 0) {
      calls.push(toolUse("TodoWrite", { todos: [{ content: `step ${turn}`, status: "in_progress" }] }));
    }
    if (turn % 5 === 0) calls.push(toolUse("NoteWrite", { notes: [`note from turn ${turn}`] }));
    script.push(reply(turn % 6 === 0 ? [text(`Progress at turn ${turn}.`), ...calls] : calls));
    if (turn === 10) script.push(reply([text("Thinking out loud without tools.")]));
  }
  script.push(reply([toolUse("task_done", { summary: "done" })]));
  return script;
}

describe("prompt caching over a 30-turn session", () => {
  const system = buildSystemPrompt({
    repo: "octo/widgets",
    branch: "tackle/issue-7",
    baseBranch: "main",
    instructionFiles: [{ path: "AGENTS.md", content: "Run `npm test` before committing.\n".repeat(150) }],
  });

  async function session() {
    const model = scriptedModel(thirtyTurnScript());
    const result = await runAgent({
      model,
      modelName: "claude-sonnet-4-5",
      tools: testRunner({}, 1_500),
      ctx: testContext(),
      system,
      initialMessage: masked("Fix issue #7: widgets overflow."),
      budgets: BUDGETS,
      signal: new AbortController().signal,
    });
    return { model, result };
  }

  it("keeps every request's prefix byte-identical up to the previous request's last breakpoint", async () => {
    const { model, result } = await session();
    expect(result.reason).toBe("task_done");
    expect(model.requests.length).toBe(31);
    for (let i = 1; i < model.requests.length; i++) {
      const previous = segments(model.requests[i - 1] as MessageRequest);
      const current = segments(model.requests[i] as MessageRequest);
      const upTo = lastMarked(previous);
      expect(upTo).toBeGreaterThan(0);
      expect(current.slice(0, upTo + 1).map((s) => s.key)).toEqual(previous.slice(0, upTo + 1).map((s) => s.key));
    }
  });

  it("uses at most four breakpoints: last tool, system, previous end, newest end", async () => {
    const { model } = await session();
    for (const request of model.requests) {
      const segs = segments(request);
      const marks = segs.flatMap((s) => (s.marked ? [s.key.slice(0, s.key.indexOf("{"))] : []));
      expect(marks.length).toBeLessThanOrEqual(4);
      expect(marks[0]).toBe("tool:");
      expect(marks[1]).toBe("system:");
      expect(request.tools?.at(-1)).toHaveProperty("cache_control", { type: "ephemeral" });
    }
  });

  it("puts the state block only after the last breakpoint, in the newest message", async () => {
    const { model } = await session();
    for (const request of model.requests) {
      const segs = segments(request);
      const withState = segs.flatMap((s, i) => (s.key.includes(STATE_BLOCK_TAG) ? [i] : []));
      expect(withState).toEqual([segs.length - 1]);
      expect(lastMarked(segs)).toBe(segs.length - 2);
      expect(JSON.stringify(request.messages.slice(0, -1))).not.toContain(STATE_BLOCK_TAG);
    }
  });

  it("never changes a request after sending it (the history is not mutated)", async () => {
    const { model } = await session();
    for (const [i, raw] of model.raw.entries()) expect(raw).toEqual(model.requests[i]);
  });

  it("reads at least 90% of input tokens from the cache", async () => {
    const { model } = await session();
    const { read, write, uncached } = simulateCache(model.requests);
    const share = read / (read + write + uncached);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });

  it("detects a layout that caches the state block (the check is not vacuous)", () => {
    // Same requests, but with the breakpoint after the state block: every turn misses.
    const base: MessageRequest = {
      model: "m",
      max_tokens: 1,
      system: [{ type: "text", text: "s".repeat(4000), cache_control: { type: "ephemeral" } }],
      messages: [],
    };
    const turns: MessageRequest[] = [];
    const history: MessageRequest["messages"] = [{ role: "user", content: [{ type: "text", text: "task" }] }];
    for (let t = 1; t <= 10; t++) {
      const state = { type: "text" as const, text: `${STATE_BLOCK_TAG} turn ${t}`, cache_control: { type: "ephemeral" as const } };
      const last = history.at(-1) as { role: "user"; content: Array<{ type: "text"; text: string }> };
      turns.push({ ...base, messages: [...history.slice(0, -1), { role: "user", content: [...last.content, state] }] });
      history.push({ role: "assistant", content: [{ type: "text", text: `reply ${t} ${"x".repeat(2000)}` }] });
      history.push({ role: "user", content: [{ type: "text", text: `result ${t}` }] });
    }
    const { read, write, uncached } = simulateCache(turns);
    expect(read / (read + write + uncached)).toBeLessThan(0.9);
  });
});
