/**
 * Subagents end to end (issue #11): signed webhook → job → PR, on a repository whose default branch
 * defines a custom agent in `.tackle/agents/reviewer.md`. The job's agent delegates to a built-in
 * `explore` and to the custom `reviewer`, which starts an `explore` of its own (two deep). The fake
 * model routes each request by its conversation (the first user message) and its turn (the assistant
 * messages so far), as a real model's replies depend only on what it is sent. Then `/tackle stop`
 * while a subagent's model call hangs, and an agent file that asks for a tool subagents may not have.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { costOf, type UsageLike } from "../../../src/agent/pricing.js";
import { transcriptPath } from "../../../src/agent/transcript.js";
import type { MessagesRequest } from "../../fakes/fake-anthropic.js";
import type { ScriptedBlock, ScriptedModel, ScriptedTurn } from "../../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { firstUserText, gate, turnIndex } from "./script-helpers.js";
import { assign, botComments, comment } from "./trigger-helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const REVIEWER_DESCRIPTION = "Reviews a change for bugs and missing tests; use it after editing code.";
const REVIEWER_BODY = "You review changes. Ask an explore subagent which test covers the code, read the code, and report each bug with its file and line.";
const REVIEWER_FILE = `---
name: reviewer
description: ${REVIEWER_DESCRIPTION}
tools: [Read, Grep, Glob, Task]
max_turns: 6
---
${REVIEWER_BODY}
`;

const TITLE = "celsiusToFahrenheit(100) returns 203";
// Each subagent's conversation is known by its prompt, which its first user message quotes.
const EXPLORE_PROMPT = "Where is celsiusToFahrenheit defined, and which offset does it add?";
const REVIEW_PROMPT = "Review celsiusToFahrenheit in src/temperature.js for bugs.";
const NESTED_PROMPT = "Which test file covers celsiusToFahrenheit?";
const REVIEW_REPORT = "Bug: src/temperature.js:3 adds 23; it must add 32. test/temperature.test.js covers it.";
/** Subagents read a lot: priced so that leaving their cost out would change the comment's total. */
const SUBAGENT_USAGE = { input_tokens: 40_000, output_tokens: 1_500, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

const call = (name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", name, input });
const act = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });
const answer = (text: string): ScriptedTurn => ({ content: [{ type: "text", text }], stop_reason: "end_turn", usage: SUBAGENT_USAGE });
const subagentAct = (...content: ScriptedBlock[]): ScriptedTurn => ({ ...act(...content), usage: SUBAGENT_USAGE });

const MAIN_TURNS: ScriptedTurn[] = [
  act(call("Task", { description: "find the conversion", prompt: EXPLORE_PROMPT, subagent_type: "explore" })),
  act(call("Task", { description: "review the conversion", prompt: REVIEW_PROMPT, subagent_type: "reviewer" })),
  act(call("Edit", { file_path: "src/temperature.js", old_string: "/ 5 + 23;", new_string: "/ 5 + 32;" })),
  act(call("git_commit", { message: "Fix the Fahrenheit offset (32, not 23)" })),
  act(call("create_pull_request", { title: "Fix celsiusToFahrenheit offset", body: "The offset was 23; the reviewer agreed." })),
  act(call("task_done", { summary: "Fixed the offset after an explore and a review." })),
];

const SUBAGENT_TURNS: Record<string, ScriptedTurn[]> = {
  [EXPLORE_PROMPT]: [
    subagentAct(call("Grep", { pattern: "function celsiusToFahrenheit", output_mode: "content" })),
    answer("src/temperature.js:2 defines it; it adds 23."),
  ],
  [REVIEW_PROMPT]: [
    subagentAct(call("Task", { description: "find the tests", prompt: NESTED_PROMPT, subagent_type: "explore" })),
    subagentAct(call("Read", { file_path: "src/temperature.js" })),
    answer(REVIEW_REPORT),
  ],
  [NESTED_PROMPT]: [subagentAct(call("Glob", { pattern: "test/*.js" })), answer("test/temperature.test.js")],
};

/** Which conversation a request belongs to: a subagent's prompt, or "main" for the job's own agent. */
function conversationOf(request: MessagesRequest): string {
  const task = firstUserText(request);
  const prompt = Object.keys(SUBAGENT_TURNS).find((p) => task.includes(p));
  if (prompt !== undefined) return prompt;
  if (task.includes(TITLE)) return "main";
  throw new Error(`no scripted conversation for: ${task.slice(0, 200)}`);
}

const delegatingModel: ScriptedModel = (request) => {
  const conversation = conversationOf(request);
  const turns = conversation === "main" ? MAIN_TURNS : SUBAGENT_TURNS[conversation]!;
  const turn = turns[turnIndex(request)];
  if (turn === undefined) throw new Error(`conversation "${conversation}" went past its script`);
  return turn;
};

interface ToolDef {
  name: string;
  description: string;
}

const requestsOf = (h: Harness, conversation: string) => h.model.requests.filter((r) => conversationOf(r.body) === conversation).map((r) => r.body);
const toolsOf = (request: MessagesRequest): ToolDef[] => (request.tools ?? []) as ToolDef[];

function systemText(request: MessagesRequest): string {
  const system = request.system as string | Array<{ text: string }> | undefined;
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block) => block.text).join("\n");
}

/** The first tool result a request carries: what the previous turn's first call answered. */
function toolResultText(request: MessagesRequest): string {
  const messages = request.messages as Array<{ role: string; content: unknown }>;
  const last = messages.at(-1)?.content as Array<{ type: string; content?: unknown }>;
  const result = last.find((block) => block.type === "tool_result");
  const content = result?.content;
  return typeof content === "string" ? content : ((content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");
}

/** A repository agent that names claude-opus-4-1, allowed or not by TACKLE_ALLOWED_MODELS. */
const PRICEY = `---
name: pricey
description: Thinks hard.
tools: Read
model: claude-opus-4-1
---
Think.
`;

const trackingComments = (h: Harness, issueNumber: number) => botComments(h, issueNumber).filter((c) => c.body.includes("tackle:tracking"));

async function harnessWith(script: ScriptedModel, files: Record<string, string>): Promise<Harness> {
  const h = await startHarness({ script });
  cleanups.push(() => h.close());
  await h.gh.commitFiles(OWNER, REPO, "main", files, { message: "Repository agents" });
  return h;
}

async function readTranscript(h: Harness, trackingBody: string): Promise<Array<Record<string, unknown>>> {
  const jobId = /<!-- tackle:tracking job=(\S+) -->/.exec(trackingBody)?.[1];
  expect(jobId).toBeDefined();
  return (await readFile(transcriptPath(path.join(h.home, "transcripts"), jobId!), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("subagents end to end", () => {
  it("delegates to explore and to the repository's reviewer, which nests an explore; the tree is in the transcript and the comment, costs summed, a PR opened", async () => {
    const h = await harnessWith(delegatingModel, { ".tackle/agents/reviewer.md": REVIEWER_FILE });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: TITLE });

    expect((await assign(h, issue.number)).status).toBe(200);
    await h.app.queue.idle();

    // The Task tool lists every type, built-in first, then the repository's with its file's description.
    const mainRequests = requestsOf(h, "main");
    expect(mainRequests).toHaveLength(MAIN_TURNS.length);
    const task = toolsOf(mainRequests[0]!).find((tool) => tool.name === "Task");
    expect(task?.description).toMatch(/- general-purpose: [^\n]+\n- explore: [^\n]+\n- shell: [^\n]+\n- reviewer: /);
    expect(task?.description).toContain(`- reviewer: ${REVIEWER_DESCRIPTION}`);

    // The reviewer gets exactly its file's tools, in its order, and none of the job-only tools.
    const reviewerRequests = requestsOf(h, REVIEW_PROMPT);
    expect(reviewerRequests).toHaveLength(3);
    for (const request of reviewerRequests) {
      const names = toolsOf(request).map((tool) => tool.name);
      expect(names).toEqual(["Read", "Grep", "Glob", "Task"]);
      for (const forbidden of ["GetIssue", "ReportToIssue", "create_pull_request", "task_done", "MemoryRead", "MemoryWrite"])
        expect(names).not.toContain(forbidden);
      // Its instructions are the agent file's body, fenced as the repository's data.
      expect(systemText(request)).toContain(`<agent_definition path=".tackle/agents/reviewer.md">\n${REVIEWER_BODY}\n</agent_definition>`);
    }
    // The explores (the job's and the reviewer's) are read-only, and the nested one got the nested task.
    for (const prompt of [EXPLORE_PROMPT, NESTED_PROMPT]) {
      const requests = requestsOf(h, prompt);
      expect(requests).toHaveLength(2);
      expect(toolsOf(requests[0]!).map((tool) => tool.name)).toEqual(["Read", "Glob", "Grep", "git_status", "git_diff", "git_log"]);
    }
    // Each parent got its child's final answer as the Task result.
    expect(toolResultText(reviewerRequests[1]!)).toMatch(/^test\/temperature\.test\.js\n\n\[subagent explore: 2 turns, \$\d+\.\d{4}\]$/);
    expect(toolResultText(mainRequests[2]!)).toMatch(new RegExp(`^${REVIEW_REPORT.replace(/[.$]/g, "\\$&")}\\n\\n\\[subagent reviewer: 3 turns, `));

    // The PR is open with the fix.
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(await h.gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "src/temperature.js")).toContain("/ 5 + 32;");
    const tracking = trackingComments(h, issue.number);
    expect(tracking).toHaveLength(1);
    const body = tracking[0]!.body;
    expect(body).toContain("✅ Tackle finished");
    expect(body).toContain("Pull request: ");

    // The transcript keys every line by its place in the tree; each conversation has its end.
    const lines = await readTranscript(h, body);
    const responses = lines.filter((line) => line.type === "response");
    const agents = ["main", "main/1/1", "main/2/1", "main/2/1/1/1"];
    expect([...new Set(responses.map((line) => line.agent))].sort()).toEqual(agents);
    expect(
      lines
        .filter((line) => line.type === "end")
        .map((line) => line.agent)
        .sort(),
    ).toEqual(agents);
    const countFor = (agent: string) => responses.filter((line) => line.agent === agent).length;
    expect(agents.map(countFor)).toEqual([6, 2, 3, 2]);
    expect(
      JSON.stringify(lines.filter((line) => line.type === "request" && line.agent === "main/2/1/1/1" && line.turn === 1).map((line) => line.body)),
    ).toContain(NESTED_PROMPT);

    // Cost: every response's, subagents included; each subagent's line shows its own, nested by depth.
    const model = String(lines.find((line) => line.type === "meta")!.model);
    const costFor = (agent?: string) =>
      responses
        .filter((line) => agent === undefined || line.agent === agent)
        .reduce((sum, line) => sum + costOf(model, (line.message as { usage: UsageLike }).usage), 0);
    const total = costFor();
    expect(total.toFixed(2)).not.toBe(costFor("main").toFixed(2));
    expect(body).toMatch(new RegExp(`<sub>\\d+s · 6 turns \\(\\+7 in subagents\\) · .* · \\$${total.toFixed(2).replace(".", "\\.")}</sub>`));
    expect(body).toContain(
      [
        "Subagents:",
        `- ✅ \`explore\`: find the conversion (2 turns, $${costFor("main/1/1").toFixed(2)})`,
        `- ✅ \`reviewer\`: review the conversion (3 turns, $${costFor("main/2/1").toFixed(2)})`,
        `  - ✅ \`explore\`: find the tests (2 turns, $${costFor("main/2/1/1/1").toFixed(2)})`,
        "",
      ].join("\n"),
    );
  });

  it("/tackle stop while a subagent's model call hangs ends the job within seconds", async () => {
    const hold = gate();
    cleanups.push(() => hold.open());
    const slowPrompt = "List every file of the repository.";
    const model: ScriptedModel = async (request) => {
      const task = firstUserText(request);
      if (task.includes(slowPrompt)) {
        await hold.wait();
        return answer("Too late.");
      }
      return turnIndex(request) === 0
        ? act(call("Task", { description: "survey the files", prompt: slowPrompt, subagent_type: "explore" }))
        : act(call("task_done", { summary: "Should not get here." }));
    };
    const h = await harnessWith(model, { ".tackle/agents/reviewer.md": REVIEWER_FILE });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Survey the repository" });

    await assign(h, issue.number);
    await h.gh.waitFor(() => h.model.requests.some((r) => firstUserText(r.body).includes(slowPrompt)), 20_000);
    const stoppedAt = Date.now();
    await comment(h, issue.number, "/tackle stop");
    await h.app.queue.idle();
    // The held model call never answers: only the stop can end the job, and it must do so promptly.
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);

    const tracking = trackingComments(h, issue.number);
    expect(tracking).toHaveLength(1);
    expect(tracking[0]!.body).toContain("Tackle was stopped");
    // The subagent the stop cut short is listed as not done.
    expect(tracking[0]!.body).toContain("- ⚠️ `explore`: survey the files (");
    // The main agent never got a second turn: the stop ended the subagent and its parent with it.
    expect(h.model.requests.filter((r) => !firstUserText(r.body).includes(slowPrompt))).toHaveLength(1);
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
  });

  it("an agent file that gives a subagent create_pull_request fails the job with a comment naming the file and the tool", async () => {
    const publisher = `---
name: publisher
description: Publishes the work.
tools: Read, create_pull_request
---
Open the pull request yourself.
`;
    const h = await harnessWith(delegatingModel, { ".tackle/agents/reviewer.md": REVIEWER_FILE, ".tackle/agents/publisher.md": publisher });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: TITLE });

    await assign(h, issue.number);
    await h.app.queue.idle();

    expect(h.model.requests).toHaveLength(0);
    const problems = botComments(h, issue.number).filter((c) => !c.body.includes("tackle:tracking"));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.body).toContain("could not use the repository's agents or skills");
    expect(problems[0]!.body).toMatch(/^- \.tackle\/agents\/publisher\.md: `tools`: "create_pull_request" is not a tool a subagent may have; /m);
    expect(problems[0]!.body).not.toContain("reviewer.md");
    const tracking = trackingComments(h, issue.number);
    expect(tracking).toHaveLength(1);
    expect(tracking[0]!.body).toContain("❌ Tackle failed");
    expect(tracking[0]!.body).toContain("invalid agent or skill files on the default branch: 1 problem(s)");
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(0);
  });

  it("an agent file naming a model outside TACKLE_ALLOWED_MODELS fails the job with a comment naming the file and the model", async () => {
    const h = await harnessWith(delegatingModel, { ".tackle/agents/pricey.md": PRICEY });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: TITLE });

    await assign(h, issue.number);
    await h.app.queue.idle();

    expect(h.model.requests).toHaveLength(0);
    const problems = botComments(h, issue.number).filter((c) => !c.body.includes("tackle:tracking"));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.body).toMatch(/^- \.tackle\/agents\/pricey\.md: `model`: .*claude-opus-4-1/m);
    expect(trackingComments(h, issue.number)[0]!.body).toContain("❌ Tackle failed");
  });

  it("a repository agent's allowed model is the one its requests name", async () => {
    const script: ScriptedModel = (request) => {
      const sub = JSON.stringify(request.messages?.[0] ?? "").includes("Your task, from the agent");
      const turn = (request.messages ?? []).filter((m) => (m as { role: string }).role === "assistant").length;
      if (sub) return { content: [{ type: "text", text: "Thought." }], stop_reason: "end_turn" };
      if (turn === 0) return act(call("Task", { description: "think", prompt: "Think about it.", subagent_type: "pricey" }));
      return act(call("task_done", { summary: "Thought about it." }));
    };
    const h = await startHarness({ script, extraEnv: { TACKLE_ALLOWED_MODELS: "claude-sonnet-4-6,claude-opus-4-1" } });
    cleanups.push(() => h.close());
    await h.gh.commitFiles(OWNER, REPO, "main", { ".tackle/agents/pricey.md": PRICEY }, { message: "Repository agents" });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: TITLE });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const models = h.model.requests.map((r) => [JSON.stringify(r.body.messages?.[0] ?? "").includes("Your task, from the agent"), r.body.model]);
    expect(models).toEqual([
      [false, "claude-sonnet-4-6"],
      [true, "claude-opus-4-1"],
      [false, "claude-sonnet-4-6"],
    ]);
  });
});
