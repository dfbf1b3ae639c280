// TACKLE_PROVIDER=openai end to end: a signed webhook starts a job whose model is an OpenAI-compatible
// chat-completions server (the loopback fake, streaming SSE with tool calls split across chunks); the
// agent reads, writes, commits and opens the PR through tool calls mapped both ways, and the tracking
// comment shows the tokens the server reported (cached ones included) and their cost.
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI, type ScriptedTurn } from "../../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { assign, botComments } from "./trigger-helpers.js";

const MODEL = "fake-coder";
const OPENAI_KEY = "sk-openai-e2e-canary-4242";

const formatTokens = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/** Reads the issue and the file at once, writes the fix, checks the sandbox's environment, commits, opens the PR and ends. */
function openaiScript(): ScriptedTurn[] {
  return [
    {
      content: [
        { type: "text", text: "Let me look at the issue and the code." },
        { type: "tool_use", name: "GetIssue", input: {} },
        { type: "tool_use", name: "Read", input: { file_path: "src/temperature.js" } },
      ],
    },
    { content: [{ type: "tool_use", name: "Write", input: { file_path: "NOTES.md", content: "The offset is 32.\n" } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "env" } }] },
    { content: [{ type: "tool_use", name: "git_commit", input: { message: "Add notes on the offset" } }] },
    { content: [{ type: "tool_use", name: "create_pull_request", input: { title: "Notes on the offset", body: "As asked." } }] },
    { content: [{ type: "tool_use", name: "task_done", input: { summary: "Wrote the notes." } }] },
  ];
}

describe("TACKLE_PROVIDER=openai: a job end to end against an OpenAI-compatible server", () => {
  let h: Harness | undefined;
  let openai: FakeOpenAI | undefined;
  afterEach(async () => {
    await h?.close();
    await openai?.close();
    h = undefined;
    openai = undefined;
  });

  async function start(extraEnv: Record<string, string> = {}): Promise<Harness> {
    openai = await startFakeOpenAI(openaiScript(), { apiKey: OPENAI_KEY, minCacheableTokens: 0 });
    // The fake Anthropic API gets an empty script: any request to it would fail the job.
    h = await startHarness({ script: [], extraEnv: { ...openai.env(), TACKLE_MODEL: MODEL, ...extraEnv } });
    return h;
  }

  it("signed webhook → PR through mapped tool calls; the comment shows the reported tokens and their configured cost", async () => {
    const harness = await start({ TACKLE_MODEL_PRICES: `${MODEL}=100/400/10` });
    const issue = harness.gh.addIssue({ owner: OWNER, repo: REPO, title: "Write down the offset" });
    expect((await assign(harness, issue.number)).status).toBe(200);
    await harness.app.queue.idle();

    // Every turn went to the OpenAI-compatible server, none to Anthropic's, and each request was valid
    // chat completions (the fake refuses a tool call left unanswered or answered out of order).
    expect(harness.model.requests).toHaveLength(0);
    expect(openai!.requests.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(openai!.requests.every((r) => r.headers.authorization === `Bearer ${OPENAI_KEY}` && r.body.model === MODEL && r.stream)).toBe(true);
    const second = openai!.requests[1]!.body.messages as Array<{ role: string; tool_calls?: Array<{ function: { name: string } }> }>;
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
    expect(second[2]!.tool_calls?.map((c) => c.function.name)).toEqual(["GetIssue", "Read"]);

    // The work landed: the file on the stable branch, one PR for it.
    expect(await harness.gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "NOTES.md")).toBe("The offset is 32.\n");
    const pulls = harness.gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    const pull = await harness.gh.pullJson(OWNER, REPO, pulls[0]!.number);
    expect(pull?.head.ref).toBe(`tackle/issue-${issue.number}`);

    // The server's automatic prefix cache: from the third request on, the history before the newest
    // turn is sent byte for byte as before, and comes back as cached tokens.
    const usage = openai!.requests.map((r) => r.usage!);
    for (const later of usage.slice(2)) expect(later.cached_tokens).toBeGreaterThan(0);
    expect(usage[5]!.cached_tokens).toBeGreaterThan(usage[2]!.cached_tokens);

    // One tracking comment, final, with the tokens as the server reported them and the cost at the operator's price.
    const comments = botComments(harness, issue.number);
    expect(comments).toHaveLength(1);
    const final = comments[0]!.body;
    expect(final).toContain("Tackle finished");
    expect(final).toContain(pull!.html_url);
    const prompt = usage.reduce((sum, u) => sum + u.prompt_tokens, 0);
    const cached = usage.reduce((sum, u) => sum + u.cached_tokens, 0);
    const output = usage.reduce((sum, u) => sum + u.completion_tokens, 0);
    const cost = ((prompt - cached) * 100 + output * 400 + cached * 10) / 1_000_000;
    expect(cost).toBeGreaterThan(0.01);
    expect(final).toContain(`6 turns · ${formatTokens(prompt)} input / ${formatTokens(output)} output tokens · $${cost.toFixed(2)}</sub>`);

    // The agent never saw the server's key: not in `env` inside the sandbox, not anywhere it was sent.
    const afterEnv = openai!.requests[3]!.body.messages as Array<{ role: string; content: string }>;
    expect(afterEnv.findLast((m) => m.role === "tool")?.content).toMatch(/PATH=/);
    expect(JSON.stringify(openai!.requests.map((r) => r.body))).not.toContain(OPENAI_KEY);
    expect(final).not.toContain(OPENAI_KEY);
  });

  it("a model the price table does not know costs $0.00 unless configured, and the job still reports its tokens", async () => {
    const harness = await start();
    const issue = harness.gh.addIssue({ owner: OWNER, repo: REPO, title: "Write down the offset" });
    await assign(harness, issue.number);
    await harness.app.queue.idle();

    const final = botComments(harness, issue.number)[0]!.body;
    expect(final).toContain("Tackle finished");
    const output = openai!.requests.reduce((sum, r) => sum + r.usage!.completion_tokens, 0);
    expect(output).toBeGreaterThan(0);
    expect(final).toContain(`/ ${formatTokens(output)} output tokens · $0.00</sub>`);
  });
});
