// The model's first message (the task: the issue's title and body, the memory index, the setup report)
// masked the memory index and the setup report, but not the issue's own text. A token pasted into an
// issue (a user's `ghp_…` in a stack trace), or a value the job holds by value, reached the model API
// in clear in the first turn, while GetIssue's result of the same body was masked by the tool registry:
// the model could read it and use it. The same held for a subagent's first message.
//
// Fix: the loop takes its first message only as `Masked` (src/agent/loop.ts `initialMessage`), which the
// session makes by masking the whole message once.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JobData } from "../../src/jobs/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createJobRuntime } from "../../src/main/runtime.js";
import { processJob } from "../../src/worker/index.js";
import { startFakeAnthropic, startFakeGitHub, type FakeAnthropic, type FakeGitHub } from "../fakes/index.js";
import { demoRepoFiles, OWNER, REPO } from "../integration/e2e/harness.js";
import { firstUserText } from "../integration/e2e/script-helpers.js";

const PASTED = `ghp_${"Zx9Yw8Vu7T".repeat(4).slice(0, 36)}`;
const OPERATOR = "operator-infra-token-5e1d7c3b9a";

let gh: FakeGitHub | undefined;
let model: FakeAnthropic | undefined;
let home: string | undefined;
afterEach(async () => {
  await model?.close();
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
  gh = model = home = undefined;
});

describe("the model's first message", () => {
  it("is masked like every tool result: a token in the issue's body never reaches the model", async () => {
    const firstMessages: string[] = [];
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    model = await startFakeAnthropic(
      (request) => {
        firstMessages.push(firstUserText(request));
        return { content: [{ type: "tool_use", name: "task_done", input: { summary: "done" } }], stop_reason: "tool_use" };
      },
      { minCacheableTokens: 0 },
    );
    home = await mkdtemp(path.join(os.tmpdir(), "tackle-first-"));
    const { deps } = await createJobRuntime(
      { ...gh.appEnv(), ...model.env(), TACKLE_HOME: home, PATH: process.env.PATH ?? "", TACKLE_SECRET_INFRA: OPERATOR },
      { mode: "server", logger: silentLogger, octokit: { throttle: false, retry: false } },
    );
    const issue = gh.addIssue({
      owner: OWNER,
      repo: REPO,
      title: "Push fails",
      body: `git push says: remote: Invalid username or token https://x-access-token:${PASTED}@github.com and ${OPERATOR}`,
    });
    const data: JobData = {
      jobId: `octo-widgets-${issue.number}-d1`,
      deliveryId: "d1",
      installationId: gh.installationId(OWNER),
      repo: { owner: OWNER, name: REPO },
      number: issue.number,
      isPullRequest: false,
      trigger: { kind: "issue_assigned", actor: "alice" },
      enqueuedAt: new Date().toISOString(),
    };
    await processJob(data, deps, new AbortController().signal);

    expect(firstMessages.length).toBeGreaterThan(0);
    expect(firstMessages[0]).toContain("git push says");
    for (const text of firstMessages) {
      expect(text).not.toContain(PASTED.slice(4));
      expect(text).not.toContain(OPERATOR);
    }
  }, 60_000);
});
