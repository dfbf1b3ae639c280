// A worker (no webhook has warmed Probot's token cache) asked Probot's `octokit.auth({ type: "installation" })`
// for the push token, and Probot sent that request to api.github.com instead of the GHE host.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { silentLogger } from "../../src/logging/logger.js";
import { createJobRuntime } from "../../src/main/runtime.js";
import { startFakeGitHub, type FakeGitHub } from "../fakes/index.js";

let gh: FakeGitHub | undefined;
let home: string | undefined;
afterEach(async () => {
  await gh?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

it("a worker's first git token comes from the GHE host, and it is the installation's token", async () => {
  gh = await startFakeGitHub();
  await gh.addRepo({ owner: "octo", name: "widgets", files: { "README.md": "hi\n" } });
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-regression-"));
  const runtime = await createJobRuntime(
    { ...gh.appEnv(), REDIS_URL: "redis://127.0.0.1:1", ANTHROPIC_API_KEY: "sk-ant-test", TACKLE_HOME: home, PATH: process.env.PATH ?? "" },
    { mode: "worker", logger: silentLogger },
  );
  const client = await runtime.forInstallation(gh.installationId("octo"));
  const token = await client.gitToken();
  expect(gh.tokens().map((t) => t.token)).toContain(token);
  const minted = gh.requests({ method: "POST", path: /\/app\/installations\/\d+\/access_tokens$/ });
  expect(minted.length).toBeGreaterThanOrEqual(1);
  // Cached: a second call mints nothing new.
  expect(await client.gitToken()).toBe(token);
  expect(gh.requests({ method: "POST", path: /\/access_tokens$/ })).toHaveLength(minted.length);
});
