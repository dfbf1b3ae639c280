// `tackle run --local` took a subagent's `model:` from the agent files at HEAD as written, while a
// server job refuses one outside TACKLE_ALLOWED_MODELS: a cloned repository's `.tackle/agents/*.md`
// could run its subagents on any model, at the user's expense, without the user choosing it.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { runLocal } from "../../src/worker/run-local.js";
import { detectSandbox } from "../../src/workspace/index.js";
import { startFakeAnthropic, type FakeAnthropic } from "../fakes/index.js";
import { git, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();

let model: FakeAnthropic | undefined;
let base: string | undefined;
afterEach(async () => {
  await model?.close();
  if (base) removeDir(base);
});

async function repoWithAgent(agentModel: string): Promise<string> {
  base = tempDir("local-agent-model");
  const repo = path.join(base, "project");
  await mkdir(path.join(repo, ".tackle", "agents"), { recursive: true });
  await writeFile(path.join(repo, "README.md"), "hi\n");
  await writeFile(
    path.join(repo, ".tackle", "agents", "pricey.md"),
    `---\nname: pricey\ndescription: Reviews the change.\nmodel: ${agentModel}\n---\nReview the change.\n`,
  );
  await git(repo, ["init", "--quiet", "-b", "main"], base);
  await git(repo, ["add", "-A"], base);
  await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
  return repo;
}

async function run(repo: string, allowedModels: string[]) {
  model = await startFakeAnthropic(
    [{ content: [{ type: "tool_use", name: "task_done", input: { summary: "Nothing to change." } }], stop_reason: "tool_use" }],
    {
      minCacheableTokens: 0,
    },
  );
  return runLocal({
    repoPath: repo,
    task: "Look at the README",
    model: createAnthropicClient({ apiKey: model.apiKey, baseURL: model.url, maxRetries: 0 }),
    modelName: "claude-sonnet-4-6",
    home: path.join(base!, "home"),
    sandbox: support.available ? "bwrap" : "off",
    secrets: [],
    clock: Date.now,
    logger: silentLogger,
    print: () => undefined,
    signal: new AbortController().signal,
    allowedModels,
  });
}

it("a local run refuses an agent file whose model the user did not allow, before any model request", async () => {
  const result = await run(await repoWithAgent("claude-opus-4-1"), []);
  expect(result.ok).toBe(false);
  expect(result.reason).toContain(".tackle/agents/pricey.md: `model`: `claude-opus-4-1` is not allowed");
  expect(result.reason).toContain("allowed: `claude-sonnet-4-6`");
  expect(model?.requests).toHaveLength(0);
});

it("a local run takes an agent file whose model is in TACKLE_ALLOWED_MODELS", async () => {
  const result = await run(await repoWithAgent("claude-opus-4-1"), ["claude-opus-4-1"]);
  expect(result.ok).toBe(true);
  expect(model?.requests).toHaveLength(1);
});
