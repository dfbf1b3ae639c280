// processJob masks what it throws to the queue (BullMQ keeps it as the job's failedReason and stack,
// shown by the queue view), but only once the job's redactor exists: a failure while the job was being
// opened (the installation's client, the installation token, both asked of GitHub or a proxy in front of
// it) went to the queue as it was, unmasked, with any secret its text echoed.
//
// Fix: a failure before the job's redactor is built is masked with the operator's secrets.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JobData } from "../../src/jobs/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createJobRuntime } from "../../src/main/runtime.js";
import { processJob } from "../../src/worker/index.js";
import { startFakeGitHub, type FakeGitHub } from "../fakes/index.js";

const SECRET = "operator-infra-token-8c2f6a4e0d";
const TOKEN = `ghs_${"Qw3Er5Ty7U".repeat(4).slice(0, 36)}`;

let gh: FakeGitHub | undefined;
let home: string | undefined;
afterEach(async () => {
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
  gh = home = undefined;
});

describe("a job that fails while it is being opened", () => {
  it("throws to the queue a masked error", async () => {
    gh = await startFakeGitHub();
    home = await mkdtemp(path.join(os.tmpdir(), "tackle-open-"));
    const { deps } = await createJobRuntime(
      { ...gh.appEnv(), ANTHROPIC_API_KEY: "sk-ant-test-key-0123456789", TACKLE_HOME: home, PATH: process.env.PATH ?? "", TACKLE_SECRET_INFRA: SECRET },
      { mode: "server", logger: silentLogger, octokit: { throttle: false, retry: false } },
    );
    const data: JobData = {
      jobId: "octo-widgets-1-d1",
      deliveryId: "d1",
      installationId: 1,
      repo: { owner: "octo", name: "widgets" },
      number: 1,
      isPullRequest: false,
      trigger: { kind: "issue_assigned", actor: "alice" },
      enqueuedAt: new Date().toISOString(),
    };
    const failing = {
      ...deps,
      github: async () => {
        throw new Error(`the proxy refused the token request (x-infra: ${SECRET}, token ${TOKEN})`);
      },
    };
    const thrown = await processJob(data, failing, new AbortController().signal).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(thrown?.message).toContain("the proxy refused the token request");
    expect(`${thrown?.message}\n${thrown?.stack}`).not.toContain(SECRET);
    expect(`${thrown?.message}\n${thrown?.stack}`).not.toContain(TOKEN);
  }, 60_000);
});
