/**
 * Background commands and Monitor end to end (issue #12): signed webhook → job → PR. The agent starts
 * an HTTP server with Bash `run_in_background`, waits for it with JobOutput, queries it from a later
 * Bash command (the job's one loopback), lists and stops it; a second background command is left
 * running for the end of the job to stop; a Monitor's three lines reach the model as events with the
 * turn after they were printed. After the job, no process of it is left on the host, and the tracking
 * comment lists the background commands.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedBlock, ScriptedModel, ScriptedTurn } from "../../fakes/index.js";
import { processesMatching } from "../workspace/helpers.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { turnIndex } from "./script-helpers.js";
import { assign, botComments } from "./trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MARKER = `tackle-bg-e2e-${process.pid}`;
const SERVER = `node -e "require('http').createServer((q, s) => s.end('pong ' + q.url)).listen(8731, '127.0.0.1', () => console.log('listening on 8731'))" ${MARKER}-server`;
const LEFT_RUNNING = `sleep 600; echo ${MARKER}-left`;
const QUERY = `node -e "fetch('http://127.0.0.1:8731/status').then((r) => r.text()).then(console.log)"`;
const MONITOR = `for i in 1 2 3; do echo "build event $i"; sleep 0.1; done; sleep 600 # ${MARKER}-monitor`;

const call = (id: string, name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", id, name, input });
const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

const SESSION: ScriptedTurn[] = [
  turn(call("toolu_server", "Bash", { command: SERVER, run_in_background: true, description: "the dev server" })),
  turn(call("toolu_wait", "JobOutput", { job_id: "job-1", wait_ms: 20_000 })),
  turn(call("toolu_query", "Bash", { command: QUERY })),
  turn(call("toolu_left", "Bash", { command: LEFT_RUNNING, run_in_background: true })),
  turn(call("toolu_monitor", "Monitor", { command: MONITOR, description: "build events", max_events: 3 })),
  // The Monitor prints meanwhile; its events come with the next turn.
  turn(call("toolu_sleep", "Bash", { command: "sleep 2" })),
  turn(call("toolu_list", "JobList", {})),
  turn(call("toolu_stop", "JobStop", { job_id: "job-1" })),
  turn(call("toolu_write", "Write", { file_path: "STATUS.md", content: "the server answers\n" })),
  turn(call("toolu_commit", "git_commit", { message: "Record the server status" })),
  turn(call("toolu_pr", "create_pull_request", { title: "Server status", body: "Checked the server." })),
  turn(call("toolu_done", "task_done", { summary: "The server answers." })),
];

const script: ScriptedModel = (request) => {
  const next = SESSION[turnIndex(request)];
  if (next === undefined) throw new Error("the session went past its script");
  return next;
};

interface Block {
  type: string;
  tool_use_id?: string;
  content?: unknown;
  text?: string;
  is_error?: boolean;
}

function blocksOf(h: Harness): Block[][] {
  const last = h.model.requests.at(-1);
  return ((last?.body.messages ?? []) as Array<{ content: unknown }>).map((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []));
}

function toolResult(h: Harness, id: string): { text: string; isError: boolean } {
  for (const blocks of blocksOf(h)) {
    const block = blocks.find((b) => b.type === "tool_result" && b.tool_use_id === id);
    if (block === undefined) continue;
    const text = typeof block.content === "string" ? block.content : ((block.content ?? []) as Block[]).map((part) => part.text ?? "").join("\n");
    return { text, isError: block.is_error === true };
  }
  throw new Error(`no tool result for ${id} reached the model`);
}

/** The text blocks sent beside the results of one tool call (the background events of that turn). */
function textBeside(h: Harness, id: string): string {
  const blocks = blocksOf(h).find((message) => message.some((b) => b.type === "tool_result" && b.tool_use_id === id)) ?? [];
  return blocks
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("\n");
}

describe("background commands and Monitor end to end", () => {
  it("serves, waits, queries, monitors and stops; nothing of the job outlives it", async () => {
    const h = await startHarness({ script });
    cleanups.push(() => h.close());
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Check that the dev server answers" });

    expect((await assign(h, issue.number)).status).toBe(200);
    await h.app.queue.idle();
    expect(h.model.requests).toHaveLength(SESSION.length);

    expect(toolResult(h, "toolu_server").text).toMatch(/^Started in the background as job-1\./);
    const waited = toolResult(h, "toolu_wait");
    expect(waited.text).toContain("listening on 8731");
    expect(waited.text).toContain("job-1: running");
    expect(toolResult(h, "toolu_query")).toEqual({ text: "pong /status\n[exit code 0]", isError: false });
    expect(toolResult(h, "toolu_monitor").text).toMatch(/^Monitoring as monitor-3\./);

    // The Monitor's lines came with the turn after they were printed, fenced as data.
    const events = textBeside(h, "toolu_sleep");
    expect(events).toContain("<background_events>");
    for (const n of [1, 2, 3]) expect(events).toContain(`[monitor-3] build event ${n}`);
    expect(events).toContain("[monitor-3] reached its max_events (3) and was stopped");
    expect(events.indexOf("build event 1")).toBeLessThan(events.indexOf("build event 3"));

    const listed = toolResult(h, "toolu_list").text.split("\n");
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatch(/^job-1: running after \d+s: node -e/);
    expect(listed[1]).toMatch(/^job-2: running after \d+s: sleep 600/);
    expect(listed[2]).toMatch(/^monitor-3: stopped after \d+s, 3 events: for i in/);
    expect(toolResult(h, "toolu_stop").text).toMatch(/^job-1: stopped after \d+s: node -e/);

    expect(await h.gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "STATUS.md")).toBe("the server answers\n");
    const tracking = botComments(h, issue.number).filter((c) => c.body.includes("tackle:tracking"));
    expect(tracking).toHaveLength(1);
    const body = tracking[0]!.body;
    expect(body).toContain("✅ Tackle finished");
    expect(body).toContain("Background commands:");
    expect(body).toMatch(/- `job-1: stopped after \d+s: node -e/);
    // The one left running was stopped by the end of the job.
    expect(body).toMatch(/- `job-2: stopped after \d+s: sleep 600/);

    // Checked from the host: the server, the command left running and the Monitor are all gone.
    expect(processesMatching(MARKER)).toEqual([]);
  });
});
