/**
 * Subagents over the real session: runAgentSession's wiring (Task, the built-in types, the registry,
 * the policy engine, one spend meter), a git worktree, and the fake Anthropic API through the SDK.
 * The fake routes each request by its conversation (the subagent's task text) and its turn (the
 * assistant messages so far), as a real model's replies depend only on what it is sent.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/agent/anthropic-client.js";
import type { ModelClient } from "../../../src/agent/model-client.js";
import { costOf } from "../../../src/agent/pricing.js";
import { createReplayClient } from "../../../src/agent/replay-client.js";
import { defaultRepoConfig } from "../../../src/config/index.js";
import { runAgentSession, type SessionOutcome } from "../../../src/worker/run-agent-session.js";
import type { TrackingState } from "../../../src/worker/tracking-comment.js";
import { openLocalWorkspace, type Workspace } from "../../../src/workspace/index.js";
import type { MessagesRequest } from "../../fakes/fake-anthropic.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from "../../fakes/index.js";
import { removeDir, tempDir } from "../workspace/helpers.js";
import { MODEL, makeRepo, sandboxMode, sessionInput } from "./helpers.js";

type Message = { role: string; content: string | Array<Record<string, unknown>> };

const call = (name: string, input: unknown) => ({ type: "tool_use" as const, name, input });
const say = (text: string): ScriptedTurn => ({ content: [{ type: "text", text }] });

/** The first user message's text: which conversation a request belongs to. */
function taskOf(request: MessagesRequest): string {
  const first = (request.messages as Message[] | undefined)?.[0];
  if (first === undefined) return "";
  return typeof first.content === "string" ? first.content : first.content.map((block) => String(block.text ?? "")).join("\n");
}

function turnOf(request: MessagesRequest): number {
  return ((request.messages as Message[] | undefined) ?? []).filter((message) => message.role === "assistant").length + 1;
}

/**
 * The job's agent sends two explore subagents in one reply (they run at once), then a general-purpose
 * one that nests an explore of its own (depth 2) and fixes the bug, then finishes.
 */
function route(request: MessagesRequest): ScriptedTurn {
  const task = taskOf(request);
  const turn = turnOf(request);
  if (task.includes("Where is toFahrenheit defined?")) {
    return turn === 1
      ? { content: [call("Grep", { pattern: "function toFahrenheit", output_mode: "content" })], delayMs: 300 }
      : say("src/temperature.js:1 defines it; it adds 23.");
  }
  if (task.includes("Where is formatDegrees used?")) {
    return turn === 1 ? { content: [call("Grep", { pattern: "formatDegrees", output_mode: "files_with_matches" })], delayMs: 300 } : say("Only src/format.js.");
  }
  if (task.includes("Which test covers the offset?")) {
    return turn === 1 ? { content: [call("Glob", { pattern: "test/*.js" })] } : say("test/temperature.test.js");
  }
  if (task.includes("Fix the offset in toFahrenheit")) {
    if (turn === 1) return { content: [call("Task", { description: "find the test", prompt: "Which test covers the offset?", subagent_type: "explore" })] };
    if (turn === 2) return { content: [call("Edit", { file_path: "src/temperature.js", old_string: "/ 5 + 23;", new_string: "/ 5 + 32;" })] };
    return say("Changed 23 to 32 in src/temperature.js; the test is test/temperature.test.js.");
  }
  // The job's own agent.
  if (turn === 1) {
    return {
      content: [
        call("Task", { description: "find the definition", prompt: "Where is toFahrenheit defined?", subagent_type: "explore" }),
        call("Task", { description: "find the callers", prompt: "Where is formatDegrees used?", subagent_type: "explore" }),
      ],
    };
  }
  if (turn === 2) return { content: [call("Task", { description: "fix the offset", prompt: "Fix the offset in toFahrenheit: it must be 32." })] };
  return { content: [call("task_done", { summary: "Fixed the offset through subagents." })] };
}

describe("subagents in a session", () => {
  let base: string | undefined;
  const fakes: FakeAnthropic[] = [];
  const workspaces: Workspace[] = [];
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close();
    for (const workspace of workspaces.splice(0)) await workspace.dispose();
    if (base !== undefined) removeDir(base);
    base = undefined;
  });

  async function session(
    model: ModelClient,
    repo: string,
    name: string,
  ): Promise<{ outcome: SessionOutcome; workspace: Workspace; transcript: string; states: TrackingState[] }> {
    const home = path.join(base!, name);
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: `tackle/local-${name}`, home, sandbox: sandboxMode });
    workspaces.push(workspace);
    const states: TrackingState[] = [];
    const outcome = await runAgentSession(
      sessionInput(workspace, model, home, {
        jobId: `job-${name}`,
        tracker: { update: (state) => states.push(structuredClone(state)), flush: async (state) => void states.push(structuredClone(state)) },
      }),
    );
    return { outcome, workspace, transcript: path.join(home, "transcripts", `job-${name}.jsonl`), states };
  }

  it("runs read-only subagents in parallel, nests two deep, sums costs, records the tree, and replays it", async () => {
    base = tempDir("subagents");
    const repo = await makeRepo(base);
    const fake = await startFakeAnthropic((request) => route(request), { minCacheableTokens: 0 });
    fakes.push(fake);
    const live = await session(createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 }), repo, "live");

    expect(live.outcome.result.reason).toBe("task_done");
    expect(readFileSync(path.join(live.workspace.root, "src/temperature.js"), "utf8")).toContain("/ 5 + 32;");

    // The two explore subagents both asked their first turn before either asked its second.
    const order = fake.requests.map(
      (request) =>
        `${taskOf(request.body).includes("toFahrenheit defined") ? "A" : taskOf(request.body).includes("formatDegrees used") ? "B" : "-"}${turnOf(request.body)}`,
    );
    const firstSecond = Math.min(order.indexOf("A2"), order.indexOf("B2"));
    expect(order.indexOf("A1")).toBeLessThan(firstSecond);
    expect(order.indexOf("B1")).toBeLessThan(firstSecond);

    // The parent got each subagent's final answer, in its calls' order.
    const secondMain = fake.requests.find((request) => !taskOf(request.body).includes("Your task, from the agent") && turnOf(request.body) === 2);
    const results = ((secondMain!.body.messages as Message[]).at(-1)!.content as Array<Record<string, unknown>>).filter(
      (block) => block.type === "tool_result",
    );
    expect(results.map((block) => String(block.content))).toEqual([
      expect.stringMatching(/^src\/temperature\.js:1 defines it; it adds 23\.\n\n\[subagent explore: 2 turns, \$\d+\.\d{4}\]$/),
      expect.stringMatching(/^Only src\/format\.js\.\n\n\[subagent explore: 2 turns/),
    ]);
    // Subagents never get the issue, publishing or ending tools, and explore gets no writers.
    const exploreTools = fake.requests.find((request) => taskOf(request.body).includes("toFahrenheit defined"))?.body.tools as Array<{ name: string }>;
    expect(exploreTools.map((tool) => tool.name)).toEqual(["Read", "Glob", "Grep", "git_status", "git_diff", "git_log"]);
    // Each type keeps one byte-stable prefix: every explore request, in both conversations and at both depths, sends the same tools and system.
    const explorePrefixes = fake.requests
      .filter((request) => /toFahrenheit defined|formatDegrees used|Which test covers/.test(taskOf(request.body)))
      .map((request) => JSON.stringify([request.body.tools, request.body.system]).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ""));
    expect(explorePrefixes).toHaveLength(6);
    expect(new Set(explorePrefixes).size).toBe(1);
    const generalTools = (fake.requests.find((request) => taskOf(request.body).includes("Fix the offset"))!.body.tools as Array<{ name: string }>).map(
      (tool) => tool.name,
    );
    expect(generalTools).toContain("Task");
    for (const forbidden of ["GetIssue", "ReportToIssue", "create_pull_request", "task_done", "MemoryRead", "MemoryWrite"])
      expect(generalTools).not.toContain(forbidden);

    // The transcript keys every line by its place in the tree.
    const lines = readFileSync(live.transcript, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "meta", version: 2 });
    const agents = [...new Set(lines.filter((line) => line.type === "response").map((line) => line.agent))].sort();
    expect(agents).toEqual(["main", "main/1/1", "main/1/2", "main/2/1", "main/2/1/1/1"]);
    expect(
      lines
        .filter((line) => line.type === "end")
        .map((line) => line.agent)
        .sort(),
    ).toEqual(agents);

    // Costs: the job's total is every response's cost, its subagents' included.
    const responses = lines.filter((line) => line.type === "response").map((line) => line.message as { usage: Parameters<typeof costOf>[1] });
    const total = responses.reduce((sum, message) => sum + costOf(MODEL, message.usage), 0);
    expect(live.outcome.result.costUsd).toBeCloseTo(total, 10);
    const mainOnly = lines.filter((line) => line.type === "end" && line.agent === "main")[0] as { costUsd: number };
    expect(live.outcome.result.costUsd).toBeGreaterThan(mainOnly.costUsd);
    expect(live.outcome.result.turns).toBe(3);
    expect(live.outcome.subagentTurns).toBe(2 + 2 + 3 + 2);

    // The tracking comment's steps show the tree: the nested explore sits at depth 2.
    expect(live.outcome.subagents.map((step) => [step.path, step.depth, step.type, step.status])).toEqual([
      ["main/1/1", 1, "explore", "done"],
      ["main/1/2", 1, "explore", "done"],
      ["main/2/1", 1, "general-purpose", "done"],
      ["main/2/1/1/1", 2, "explore", "done"],
    ]);
    expect(live.states.some((state) => state.phase === "working" && state.subagents?.some((step) => step.status === "running"))).toBe(true);

    // A replay of the transcript reproduces the run: each conversation gets its own responses, whatever the interleaving.
    const replay = await session(createReplayClient(live.transcript), repo, "replay");
    expect(replay.outcome.result.reason).toBe("task_done");
    expect(readFileSync(path.join(replay.workspace.root, "src/temperature.js"), "utf8")).toContain("/ 5 + 32;");
    const toolResults = (file: string) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; agent: string; turn: number; results: unknown })
        .filter((line) => line.type === "tool_results")
        .map((line) => JSON.stringify([line.agent, line.turn, line.results]))
        .sort();
    expect(toolResults(replay.transcript)).toEqual(toolResults(live.transcript));
    expect(replay.outcome.result.costUsd).toBeCloseTo(live.outcome.result.costUsd, 10);
  });

  it("runs the repository's hooks on a subagent's calls too, and counts their denials", async () => {
    base = tempDir("subagent-hooks");
    const repo = await makeRepo(base);
    const routeHooked = (request: MessagesRequest): ScriptedTurn => {
      const turn = turnOf(request);
      if (taskOf(request).includes("Run the test suite"))
        return turn === 1 ? { content: [call("Bash", { command: "echo ran > ran.txt" })] } : say("The shell was refused.");
      if (turn === 1) return { content: [call("Task", { description: "run the tests", prompt: "Run the test suite.", subagent_type: "shell" })] };
      return { content: [call("task_done", { summary: "Tried." })] };
    };
    const fake = await startFakeAnthropic((request) => routeHooked(request), { minCacheableTokens: 0 });
    fakes.push(fake);
    const home = path.join(base, "hooked");
    const workspace = await openLocalWorkspace({ repoPath: repo, branch: "tackle/local-hooked", home, sandbox: sandboxMode });
    workspaces.push(workspace);
    const hooks = { PreToolUse: [{ matcher: "Bash", command: "echo 'no shell for subagents' >&2; exit 2" }], PostToolUse: [] };
    const outcome = await runAgentSession(
      sessionInput(workspace, createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 }), home, {
        jobId: "job-hooked",
        config: { ...defaultRepoConfig(), hooks },
      }),
    );

    expect(outcome.result.reason).toBe("task_done");
    const subagentSecond = fake.requests.find((request) => taskOf(request.body).includes("Run the test suite") && turnOf(request.body) === 2);
    const results = ((subagentSecond!.body.messages as Message[]).at(-1)!.content as Array<Record<string, unknown>>).filter(
      (block) => block.type === "tool_result",
    );
    expect(results).toEqual([expect.objectContaining({ content: "Denied by a PreToolUse hook: no shell for subagents", is_error: true })]);
    expect(existsSync(path.join(workspace.root, "ran.txt"))).toBe(false);
    expect(outcome.hookDenials).toEqual(["Bash"]);
  });
});
