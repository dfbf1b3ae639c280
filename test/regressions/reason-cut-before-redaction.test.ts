// The tracking comment cuts a long failure reason to 2,000 characters (the middle goes), and only then
// did the job's redacting GitHub client mask its secrets by value. A model server whose error echoes
// the API key (a proxy showing the request it refused) around the cut left a piece of the key that
// no longer matched the value: most of the key reached the issue. Now the reason is masked before
// the comment is rendered and cut.
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

const alnum = (n: number) => "aB3dE6gH9kPq2Rs5Tu8V".repeat(Math.ceil(n / 20)).slice(0, n);
/** No known token format: only masking by value can catch it. */
const KEY = `proxy-${alnum(60)}`;

let gh: FakeGitHub | undefined;
let model: FakeAnthropic | undefined;
let home: string | undefined;
afterEach(async () => {
  await model?.close();
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
  gh = model = home = undefined;
});

describe("a failure reason longer than the comment shows", () => {
  it("is masked before it is cut: no piece of the key reaches GitHub", async () => {
    // The key at every offset, so the cuts fall inside copies of it.
    const echo = Array.from({ length: 80 }, (_, i) => `${"~".repeat(i % 11)}${KEY}`).join(" ");
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    model = await startFakeAnthropic(() => ({ error: { status: 400, type: "invalid_request_error", message: `refused: ${echo}` } }), {
      minCacheableTokens: 0,
      apiKey: KEY,
    });
    home = await mkdtemp(path.join(os.tmpdir(), "tackle-cut-"));
    const { deps } = await createJobRuntime(
      { ...gh.appEnv(), ...model.env(), TACKLE_HOME: home, PATH: process.env.PATH ?? "" },
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
    expect((await processJob(data, deps, new AbortController().signal)).status).toBe("failed");

    const written = JSON.stringify(gh.requests({ kind: "rest" }).filter((entry) => entry.method !== "GET" && entry.body !== undefined));
    expect(written).toContain("refused: [REDACTED]");
    // Any 12 characters of the key's secret part.
    const secret = KEY.slice("proxy-".length);
    for (let start = 0; start + 12 <= secret.length; start++) expect(written).not.toContain(secret.slice(start, start + 12));
  }, 60_000);
});
