// Each entry point built its job's list of secrets by hand (runtime.ts, action.ts, local.ts: the model's
// credentials plus a few named tokens), apart from the logger's list of credential-like names. A
// credential on the logger's list and not on the job's (GITHUB_CLIENT_SECRET for the dashboard's sign-in,
// any other `*_TOKEN` the operator set) was masked in the log but went out unmasked in the tracking
// comment, the job store and the transcript when a failure text echoed it (here the model API's error).
//
// Fix: one list (environmentSecrets in src/logging/environment-secrets.ts) that every job's redactor,
// the logger and the Action's setSecret read.
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

/** No known token format: only masking by value can catch them. */
const CLIENT_SECRET = "oauth-client-secret-7f3a9c1e5b";
const OTHER_TOKEN = "ops-pager-token-2d8e4f6a0c";

let gh: FakeGitHub | undefined;
let model: FakeAnthropic | undefined;
let home: string | undefined;
afterEach(async () => {
  await model?.close();
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
  gh = model = home = undefined;
});

describe("an operator credential that the model API's error echoes", () => {
  it("is masked in what the job writes to GitHub, as the logger masks it", async () => {
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    model = await startFakeAnthropic(
      () => ({ error: { status: 400, type: "invalid_request_error", message: `refused: client_secret=${CLIENT_SECRET} pager=${OTHER_TOKEN}` } }),
      { minCacheableTokens: 0 },
    );
    home = await mkdtemp(path.join(os.tmpdir(), "tackle-oplist-"));
    const { deps } = await createJobRuntime(
      {
        ...gh.appEnv(),
        ...model.env(),
        TACKLE_HOME: home,
        PATH: process.env.PATH ?? "",
        GITHUB_CLIENT_ID: "Iv1.0123456789abcdef",
        GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        OPS_PAGER_TOKEN: OTHER_TOKEN,
      },
      { mode: "server", logger: silentLogger, octokit: { throttle: false, retry: false } },
    );
    const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "Model fails" });
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
    const outcome = await processJob(data, deps, new AbortController().signal);
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toContain("refused: client_secret=[REDACTED]");

    const written = JSON.stringify(gh.requests({ kind: "rest" }).filter((entry) => entry.method !== "GET" && entry.body !== undefined));
    expect(written).toContain("client_secret=[REDACTED]");
    expect(written).not.toContain(CLIENT_SECRET);
    expect(written).not.toContain(OTHER_TOKEN);
  }, 60_000);
});
