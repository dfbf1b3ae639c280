// An OpenAI-compatible server's error that is not JSON (a proxy's page showing the request it refused)
// was cut to 500 characters by the model client, before anything masked it: a key echoed across the
// cut left a piece that no longer matched the key's value, and the piece reached the tracking
// comment's reason (and the job store, the queue's record and the log). The same class as
// reason-cut-before-redaction, one step earlier. Now the client masks the body with the key it sent
// before cutting it (`cutMasked`). A job through processJob with the fake GitHub and a model server
// on loopback that answers every request with such a page.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JobData } from "../../src/jobs/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createJobRuntime } from "../../src/main/runtime.js";
import { processJob } from "../../src/worker/index.js";
import { startFakeGitHub, type FakeGitHub } from "../fakes/index.js";
import { demoRepoFiles, OWNER, REPO } from "../integration/e2e/harness.js";

const alnum = (n: number) => "aB3dE6gH9kPq2Rs5Tu8V".repeat(Math.ceil(n / 20)).slice(0, n);
/** No known token format: only masking by value can catch it. */
const KEY = `proxy-${alnum(60)}`;

let gh: FakeGitHub | undefined;
let server: Server | undefined;
let home: string | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
  gh = server = home = undefined;
});

describe("an OpenAI-compatible server's plain-text error longer than the client keeps", () => {
  it("is masked before it is cut: no piece of the key reaches GitHub", async () => {
    // 480 characters, then the key: a cut at 500 falls inside it.
    const page = `<html><body>Refused: ${"x ".repeat(229)}x${KEY} and more</body></html>`;
    server = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(401, { "content-type": "text/html", "x-should-retry": "false" }).end(page));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    home = await mkdtemp(path.join(os.tmpdir(), "tackle-openai-cut-"));
    const env = { TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: KEY, TACKLE_MODEL: "gpt-fake" };
    const { deps } = await createJobRuntime(
      { ...gh.appEnv(), ...env, TACKLE_HOME: home, PATH: process.env.PATH ?? "" },
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

    const written = JSON.stringify(gh.requests({ kind: "rest" }).filter((entry) => entry.method !== "GET" && entry.body !== undefined));
    expect(written).toContain("Refused:");
    // Any 12 characters of the key's secret part, in what GitHub got and in the outcome the store keeps.
    const secret = KEY.slice("proxy-".length);
    for (let start = 0; start + 12 <= secret.length; start++) {
      expect(written).not.toContain(secret.slice(start, start + 12));
      expect(outcome.reason).not.toContain(secret.slice(start, start + 12));
    }
  }, 60_000);
});
