// A repository's PreToolUse hook on `Bash` did not see Monitor, which runs a shell command in the
// background just as `Bash {run_in_background: true}` does: a Monitor ran a command the hook would
// have denied. Hooks now see every call as its canonical action (src/agent/tools/canonical-action.ts):
// a Monitor is `Bash {command, run_in_background: true}`.
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/anthropic-client.js";
import { defaultRepoConfig } from "../../src/config/index.js";
import { runAgentSession } from "../../src/worker/run-agent-session.js";
import { openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import type { MessagesRequest } from "../fakes/fake-anthropic.js";
import { startFakeAnthropic, type ScriptedTurn } from "../fakes/index.js";
import { makeRepo, sandboxMode, sessionInput } from "../integration/agent/helpers.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";

const call = (name: string, input: unknown): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const turnOf = (request: MessagesRequest) => ((request.messages as Array<{ role: string }> | undefined) ?? []).filter((m) => m.role === "assistant").length;
type Block = { type: string; content?: string; is_error?: boolean };
const resultOf = (request: MessagesRequest) =>
  ((request.messages as Array<{ content: Block[] }>).at(-1)!.content as Block[]).find((b) => b.type === "tool_result");

describe("a Bash deny hook", () => {
  let base: string | undefined;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    if (base !== undefined) removeDir(base);
  });

  it.each([
    ["Monitor", { command: "touch watched.txt; sleep 600", description: "watch" }],
    ["Bash", { command: "touch watched.txt; sleep 600", run_in_background: true }],
  ])("denies %s running the command, and the hook reads it as Bash on stdin", async (name, input) => {
    base = tempDir("monitor-hook");
    const repo = await makeRepo(base);
    const steps = [call(name, input), call("task_done", { summary: "Tried." })];
    const fake = await startFakeAnthropic((request) => steps[Math.min(turnOf(request), steps.length - 1)]!, { minCacheableTokens: 0 });
    closers.push(() => fake.close());
    const workspace: Workspace = await openLocalWorkspace({
      repoPath: repo,
      branch: "tackle/local-monitor-hook",
      home: path.join(base, "home"),
      sandbox: sandboxMode,
    });
    closers.push(() => workspace.dispose());
    const log = path.join(workspace.fs.root, "hook-stdin.json");
    const deny = `cat > ${log}; if grep -q watched.txt ${log}; then echo 'nothing watches files here' >&2; exit 2; fi`;
    const config = { ...defaultRepoConfig(), hooks: { PreToolUse: [{ matcher: "Bash", command: deny }], PostToolUse: [] } };
    const model = createAnthropicClient({ apiKey: fake.apiKey, baseURL: fake.url, maxRetries: 0 });
    const outcome = await runAgentSession(sessionInput(workspace, model, path.join(base, "home"), { config }));

    expect(outcome.result.reason).toBe("task_done");
    expect(resultOf(fake.requests.at(-1)!.body)).toMatchObject({ is_error: true, content: "Denied by a PreToolUse hook: nothing watches files here" });
    await expect(access(path.join(workspace.fs.root, "watched.txt"))).rejects.toThrow();
    expect(outcome.backgroundJobs).toEqual([]);
    const stdin = JSON.parse(await readFile(log, "utf8"));
    expect(stdin).toMatchObject({ tool_name: "Bash", tool_input: { command: input.command, run_in_background: true } });
    if (name === "Monitor") expect(stdin).toMatchObject({ original_tool_name: "Monitor", original_tool_input: input });
  });
});
