/**
 * Scripted-model sessions over the real parts: runAgent, the registry over coreTools() with the real
 * policy engine, a worktree from openLocalWorkspace (sandboxed by bubblewrap where it works), and the fake Anthropic API
 * reached through the real SDK (streaming, partial JSON, usage). Each test plays one situation a real
 * model creates and checks what the model is told in the next request and what happened on disk.
 *
 * The registry's own proof that read-only calls overlap, with controlled sleeps, is in
 * test/unit/tools/registry.test.ts ("runs the read calls of one turn in parallel ..."); here the
 * overlap is shown on the real search port.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CUT_OFF_TEXT, NUDGE_TEXT } from "../../../src/agent/loop.js";
import { STATE_BLOCK_TAG } from "../../../src/agent/prompt/render-state.js";
import { DEFAULT_MAX_RESULT_CHARS } from "../../../src/agent/tools/index.js";
import type { ExecPort, SearchPort } from "../../../src/agent/ports.js";
import type { RecordedRequest, ScriptedTurn } from "../../fakes/index.js";
import { createSessionHarness, sandboxMode, textsIn, toolResultsIn, toolUseIdsOf } from "./helpers.js";

type MessagesRequest = RecordedRequest["body"];

const harness = createSessionHarness();
afterEach(() => harness.cleanup());

const done = (summary = "Done."): ScriptedTurn => ({ content: [{ type: "tool_use", name: "task_done", input: { summary } }] });
const call = (name: string, input: unknown, id?: string) => ({ type: "tool_use" as const, name, input, ...(id === undefined ? {} : { id }) });

describe("a scripted session over the real loop, registry and workspace", () => {
  it("runs one turn's read-only calls at the same time and answers them in the calls' order", async () => {
    const spans: Array<{ start: number; end: number }> = [];
    // Every ripgrep run (Grep and Glob) is held 200 ms, so overlap, or its absence, is unmistakable.
    const slowSearch = (search: SearchPort): SearchPort => ({
      onHost: search.onHost,
      async ripgrep(args, options) {
        const start = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 200));
        const result = await search.ripgrep(args, options);
        spans.push({ start, end: performance.now() });
        return result;
      },
    });
    const session = await harness.start(
      [
        {
          content: [
            { type: "text", text: "Let me look around." },
            call("Grep", { pattern: "toFahrenheit", output_mode: "content" }, "toolu_grep_1"),
            call("Read", { file_path: "src/format.js" }, "toolu_read_1"),
            call("Grep", { pattern: "degrees", output_mode: "files_with_matches" }, "toolu_grep_2"),
            call("Glob", { pattern: "src/*.js" }, "toolu_glob_1"),
          ],
        },
        done(),
      ],
      { wrap: ({ search }) => ({ search: slowSearch(search) }) },
    );
    const result = await session.run();

    expect(result.reason).toBe("task_done");
    const results = toolResultsIn(session.fake, 1);
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_grep_1", "toolu_read_1", "toolu_grep_2", "toolu_glob_1"]);
    expect(results.every((r) => r.is_error !== true)).toBe(true);
    expect(results[0]?.content).toContain("src/temperature.js:1:export function toFahrenheit(c) {");
    expect(results[0]?.content).toContain("test/temperature.test.js:1:import { toFahrenheit }");
    expect(results[1]?.content).toBe("     1\texport function formatDegrees(value, unit) {\n     2\t  return `${value} degrees ${unit}`;\n     3\t}");
    expect(results[2]?.content).toBe("Found 1 file\nsrc/format.js");
    expect(results[3]?.content.split("\n").sort()).toEqual(["src/format.js", "src/temperature.js"]);

    // Three searches of 200 ms each: all had started before the first finished.
    expect(spans).toHaveLength(3);
    expect(Math.max(...spans.map((s) => s.start))).toBeLessThan(Math.min(...spans.map((s) => s.end)));
  });

  it("serves a repeated Read from the cache, and reads the new content after an Edit", async () => {
    const file = "src/temperature.js";
    const turns: ScriptedTurn[] = [
      { content: [call("Read", { file_path: file })] },
      { content: [call("Read", { file_path: file })] },
      { content: [call("Edit", { file_path: file, old_string: "/ 5 + 23;", new_string: "/ 5 + 32;" })] },
      { content: [call("Read", { file_path: file })] },
      done("Fixed the offset."),
    ];
    let root = "";
    const session = await harness.start((_request, index) => {
      // Behind the registry's back, after the first Read: only a cache can still answer with the old text.
      if (index === 1) writeFileSync(path.join(root, file), `${readFileSync(path.join(root, file), "utf8")}// touched\n`);
      return turns[index] ?? done();
    });
    root = session.workspace.root;

    expect((await session.run()).reason).toBe("task_done");
    const [first] = toolResultsIn(session.fake, 1);
    const [repeated] = toolResultsIn(session.fake, 2);
    const [edited] = toolResultsIn(session.fake, 3);
    const [afterEdit] = toolResultsIn(session.fake, 4);
    expect(first?.content).toContain("/ 5 + 23;");
    expect(repeated?.content).toBe(first?.content);
    expect(edited?.is_error).not.toBe(true);
    expect(afterEdit?.content).toContain("     2\t  return (c * 9) / 5 + 32;");
    expect(afterEdit?.content).toContain("     4\t// touched");
    expect(readFileSync(path.join(root, file), "utf8")).toContain("/ 5 + 32;");
  });

  it("refuses a write to a protected path, through Write and through Bash", async () => {
    const session = await harness.start([
      {
        content: [
          call("Write", { file_path: ".github/workflows/x.yml", content: "on: push\njobs: {}\n" }),
          call("Bash", { command: "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/y.yml" }),
        ],
      },
      done(),
    ]);
    expect((await session.run()).reason).toBe("task_done");
    const [write, bash] = toolResultsIn(session.fake, 1);
    expect(write).toMatchObject({ is_error: true });
    expect(write?.content).toMatch(/^Denied: \.github\/workflows\/x\.yml is a protected path/);
    expect(bash).toMatchObject({ is_error: true });
    expect(bash?.content).toMatch(/^Denied: .*protected path/);
    expect(existsSync(path.join(session.workspace.root, ".github/workflows/x.yml"))).toBe(false);
    expect(existsSync(path.join(session.workspace.root, ".github"))).toBe(false);
    expect(await session.workspace.git.status()).toEqual([]);
  });

  it("refuses a catastrophic command without running anything", async () => {
    const commands: string[] = [];
    const counting = (exec: ExecPort): ExecPort => ({
      sandboxed: exec.sandboxed,
      run: (command, options) => {
        commands.push(command);
        return exec.run(command, options);
      },
    });
    const session = await harness.start(
      [{ content: [call("Bash", { command: "touch ran.txt; rm -rf /" })] }, { content: [call("Bash", { command: "echo still-here" })] }, done()],
      { wrap: ({ exec }) => ({ exec: counting(exec) }) },
    );
    expect((await session.run()).reason).toBe("task_done");
    const [refused] = toolResultsIn(session.fake, 1);
    expect(refused).toMatchObject({ is_error: true });
    expect(refused?.content).toMatch(/^Denied: refused: rm -r on \/ .*never allowed/);
    expect(existsSync(path.join(session.workspace.root, "ran.txt"))).toBe(false);
    // Only the harmless command of the next turn reached the sandbox.
    expect(commands).toEqual(["echo still-here"]);
    expect(toolResultsIn(session.fake, 2)[0]?.content).toBe("still-here\n[exit code 0]");
  });

  it("hands the model a small, truncated result for a 50 MB command output", async () => {
    const session = await harness.start([{ content: [call("Bash", { command: "head -c 50000000 /dev/zero | tr '\\0' a" })] }, done()]);
    expect((await session.run()).reason).toBe("task_done");
    expect(session.workspace.sandboxed).toBe(sandboxMode === "bwrap");
    const [output] = toolResultsIn(session.fake, 1);
    expect(output?.is_error).not.toBe(true);
    expect(output?.content.length).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS + 500);
    expect(output?.content.startsWith("a".repeat(1000))).toBe(true);
    expect(output?.content).toMatch(/characters \(\d+ lines\) omitted from the middle; redirect the output to a file/);
    // The exec port kept a bounded head; the rest was dropped while the command ran, and the result says so.
    const dropped = Number(/\[(\d+) more bytes of output were dropped; exit code 0\]$/.exec(output?.content ?? "")?.[1]);
    expect(dropped).toBeGreaterThan(45_000_000);
    expect(dropped).toBeLessThan(50_000_000);
    expect(JSON.stringify(session.fake.requests[1]?.body).length).toBeLessThan(100_000);
  });

  it("answers a call missing a required field with an is_error result naming the field", async () => {
    const session = await harness.start([
      {
        content: [
          call("Read", { path: "src/format.js" }),
          call("Edit", { file_path: "src/format.js", old_string: "degrees" }),
          call("Read", { file_path: "README.md" }),
        ],
      },
      done(),
    ]);
    expect((await session.run()).reason).toBe("task_done");
    const [read, edit, valid] = toolResultsIn(session.fake, 1);
    expect(read).toMatchObject({ is_error: true });
    expect(read?.content).toMatch(/^Invalid input for Read: file_path: .*Expected: \{ file_path \(string\), offset\? \(integer\), limit\? \(integer\) \}/);
    expect(edit).toMatchObject({ is_error: true });
    expect(edit?.content).toMatch(/^Invalid input for Edit: new_string: /);
    expect(readFileSync(path.join(session.workspace.root, "src/format.js"), "utf8")).toContain("degrees");
    // One bad call does not spoil the others of its turn.
    expect(valid?.is_error).not.toBe(true);
    expect(valid?.content).toContain("# widgets");
  });

  it("answers an unknown tool with an is_error result listing the tools", async () => {
    const session = await harness.start([{ content: [call("str_replace_editor", { command: "view", path: "README.md" })] }, done()]);
    expect((await session.run()).reason).toBe("task_done");
    const [unknown] = toolResultsIn(session.fake, 1);
    expect(unknown).toMatchObject({ is_error: true });
    expect(unknown?.content).toMatch(/^Unknown tool "str_replace_editor"\. Available tools: Read, Write, Edit, Glob, Grep, Bash, /);
    expect(unknown?.content).toContain("task_done");
  });

  it("stops at the turn budget", async () => {
    // Bounded, so a loop that ignored the budget fails fast instead of running on.
    const session = await harness.start((_request, index) => (index < 10 ? { content: [call("git_status", {})] } : done()), {
      budgets: { maxTurns: 3 },
    });
    const result = await session.run();
    expect(result).toMatchObject({ reason: "max_turns", turns: 3 });
    expect(result.reasonText).toBe("The run stopped after reaching its limit of 3 turns.");
    expect(session.fake.requests).toHaveLength(3);
    // The last turn the model got said the budget was nearly spent.
    expect(textsIn(session.fake, 2).at(-1)).toContain("turn 3 of 3 (1 left including this one)");
  });

  it("stops at the cost budget, from the usage the API reports", async () => {
    // 100 000 uncached input tokens of claude-sonnet-4-6 at $3 per million: $0.30 a turn (plus output).
    const costly: ScriptedTurn = {
      content: [call("git_status", {})],
      usage: { input_tokens: 100_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    const session = await harness.start((_request, index) => (index < 10 ? costly : done()), { budgets: { maxCostUsd: 0.7 } });
    const result = await session.run();
    // After two turns ($0.60), a third like the last would pass $0.70: the run stops before it.
    expect(result).toMatchObject({ reason: "max_cost", turns: 2 });
    expect(result.usage.input).toBe(200_000);
    expect(result.usage.cacheRead + result.usage.cacheWrite).toBe(0);
    expect(result.costUsd).toBeGreaterThan(0.6);
    expect(result.costUsd).toBeLessThanOrEqual(0.7);
    expect(result.reasonText).toMatch(/cost budget of \$0\.70 \(spent \$0\.60\)/);
    expect(session.fake.requests).toHaveLength(2);
  });

  it("compacts older turns with a tool-less call, and the todos survive", async () => {
    const todos = [
      { content: "Find the conversion bug", status: "completed" },
      { content: "Fix the Fahrenheit offset", status: "in_progress" },
      { content: "Run the tests", status: "pending" },
    ];
    const turns: ScriptedTurn[] = [
      { content: [call("TodoWrite", { todos })] },
      { content: [call("Read", { file_path: "src/big.txt" })] },
      { content: [call("git_status", {})] },
      done(),
    ];
    const summary = "SUMMARY: the bug is in src/temperature.js (offset 23, should be 32).";
    let next = 0;
    const session = await harness.start(
      (request: MessagesRequest) => (request.tools === undefined ? { content: [{ type: "text", text: summary }] } : (turns[next++] ?? done())),
      // The tool definitions and system prompt come to about 4 000 tokens; the big file's Read pushes past 80 % of 12 000.
      { agent: { contextWindowTokens: 12_000, keepTurnsOnCompaction: 1 } },
    );
    writeFileSync(path.join(session.workspace.root, "src/big.txt"), "filler line of a large file\n".repeat(1_000));

    const result = await session.run();
    expect(result.reason).toBe("task_done");
    const bodies = session.fake.requests.map((r) => r.body);
    const compactions = bodies.flatMap((body, index) => (body.tools === undefined ? [index] : []));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const first = compactions[0] as number;
    const compaction = bodies[first] as MessagesRequest;
    expect(compaction.tool_choice).toBeUndefined();
    expect(String(compaction.system)).toMatch(/condense the working history/);
    expect(JSON.stringify(compaction.messages)).toContain("(tool call TodoWrite");
    expect(session.events.some((e) => e.type === "compacted")).toBe(true);

    // The turn after the compaction: the summary replaced the old turns, the todos are still shown.
    const after = bodies[first + 1] as MessagesRequest;
    expect(after.tools).toBeDefined();
    const afterJson = JSON.stringify(after.messages);
    expect(afterJson).toContain(`<earlier_work_summary>\\n${summary}`);
    expect(afterJson).not.toContain('"name":"TodoWrite"');
    const state = textsIn(session.fake, first + 1).at(-1) ?? "";
    expect(state.startsWith(STATE_BLOCK_TAG)).toBe(true);
    expect(state).toContain("[x] Find the conversion bug");
    expect(state).toContain("[>] Fix the Fahrenheit offset");
    expect(state).toContain("[ ] Run the tests");
    // Compaction calls do not count as turns.
    expect(result.turns).toBe(4);
  });

  it("masks a planted token and the job's secret before the model sees them", async () => {
    const token = `ghs_${"A1b2C3d4E5".repeat(3)}x9Y8z7`;
    expect(token).toHaveLength(40);
    const secret = "hunter2-job-secret-value";
    const session = await harness.start(
      [
        {
          content: [call("Read", { file_path: "config/settings.txt" }), call("Grep", { pattern: "ghs_", output_mode: "content" })],
        },
        { content: [call("Bash", { command: "cat config/settings.txt" })] },
        done(),
      ],
      { secrets: [secret] },
    );
    await session.workspace.fs.writeFile("config/settings.txt", `GITHUB_TOKEN=${token}\nDEPLOY_KEY=${secret}\n`);

    expect((await session.run()).reason).toBe("task_done");
    const [read, grep] = toolResultsIn(session.fake, 1);
    const [bash] = toolResultsIn(session.fake, 2);
    expect(grep?.content).toBe("config/settings.txt:1:GITHUB_TOKEN=[REDACTED:github-token]");
    for (const result of [read, bash]) {
      expect(result?.content).toContain("GITHUB_TOKEN=[REDACTED:github-token]");
      expect(result?.content).toContain("DEPLOY_KEY=[REDACTED]");
    }
    // Nowhere in anything sent to the model, in any request.
    const sent = JSON.stringify(session.fake.requests.map((r) => r.body));
    expect(sent).not.toContain(token);
    expect(sent).not.toContain(secret);
  });

  it("runs several tool_use blocks of one turn in order, each seeing the ones before", async () => {
    const session = await harness.start([
      {
        content: [
          { type: "text", text: "Planning, then writing." },
          call("TodoWrite", { todos: [{ content: "Write the plan", status: "in_progress" }] }, "toolu_a"),
          call("Write", { file_path: "notes/plan.md", content: "step one\nstep two\n" }, "toolu_b"),
          call("Read", { file_path: "notes/plan.md" }, "toolu_c"),
          call("Bash", { command: "wc -l < notes/plan.md" }, "toolu_d"),
          call("NoteWrite", { notes: ["plan written"] }, "toolu_e"),
        ],
      },
      done(),
    ]);
    expect((await session.run()).reason).toBe("task_done");
    expect(toolUseIdsOf(session.fake, 0)).toEqual(["toolu_a", "toolu_b", "toolu_c", "toolu_d", "toolu_e"]);
    const results = toolResultsIn(session.fake, 1);
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_a", "toolu_b", "toolu_c", "toolu_d", "toolu_e"]);
    expect(results.map((r) => r.is_error === true)).toEqual([false, false, false, false, false]);
    expect(results[1]?.content).toBe("Created notes/plan.md: 18 bytes, 2 lines.");
    expect(results[2]?.content).toBe("     1\tstep one\n     2\tstep two");
    expect(results[3]?.content).toBe("2\n[exit code 0]");
    expect(session.ctx.state).toMatchObject({ todos: [{ content: "Write the plan", status: "in_progress" }], notes: ["plan written"] });
    const state = textsIn(session.fake, 1).at(-1) ?? "";
    expect(state).toContain("[>] Write the plan");
    expect(state).toContain("- plan written");
  });

  it("does not run a tool call cut off by max_tokens, and asks for a smaller input", async () => {
    const session = await harness.start([
      {
        content: [
          { type: "text", text: "Writing the lookup table." },
          call("Read", { file_path: "README.md" }, "toolu_whole"),
          { type: "tool_use", name: "Write", id: "toolu_cut", partialJson: '{"file_path": "src/table.js", "content": "export const table = [1, 2, 3' },
        ],
        stop_reason: "max_tokens",
      },
      done(),
    ]);
    expect((await session.run()).reason).toBe("task_done");
    const [whole, cut] = toolResultsIn(session.fake, 1);
    expect(whole).toMatchObject({ tool_use_id: "toolu_whole" });
    expect(whole?.content).toContain("# widgets");
    expect(cut).toMatchObject({ tool_use_id: "toolu_cut", is_error: true, content: CUT_OFF_TEXT });
    expect(cut?.content).toMatch(/smaller input/);
    // The SDK parsed the partial input into a valid-looking Write; running it would have created the file.
    expect(existsSync(path.join(session.workspace.root, "src/table.js"))).toBe(false);
  });

  it("nudges after a text-only reply, then goes on to task_done", async () => {
    const session = await harness.start([{ content: [{ type: "text", text: "The offset should be 32 instead of 23." }] }, done("Explained the fix.")]);
    const result = await session.run();
    expect(result).toMatchObject({ reason: "task_done", turns: 2, summary: "Explained the fix." });
    expect(textsIn(session.fake, 1)[0]).toBe(NUDGE_TEXT);
    expect(session.events.filter((e) => e.type === "nudged")).toHaveLength(1);
  });

  it("ends with task_done after the turn that called it, asking the model nothing more", async () => {
    const session = await harness.start([
      {
        content: [{ type: "text", text: "All set." }, call("git_status", {}), call("task_done", { summary: "Nothing to change.", files_changed: [] })],
      },
      { content: [call("Bash", { command: "touch after-done.txt" })] },
    ]);
    const result = await session.run();
    expect(result).toMatchObject({ reason: "task_done", turns: 1, summary: "Nothing to change." });
    expect(result.reasonText).toBe("The agent finished the task in 1 turn.");
    expect(session.ctx.state.done).toEqual({ summary: "Nothing to change.", filesChanged: [] });
    expect(session.fake.turnsUsed()).toBe(1);
    expect(existsSync(path.join(session.workspace.root, "after-done.txt"))).toBe(false);
  });
});
