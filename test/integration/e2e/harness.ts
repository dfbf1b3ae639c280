import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createAnthropicClient } from "../../../src/agent/index.js";
import type { JobData } from "../../../src/jobs/index.js";
import { createJobRuntime } from "../../../src/main/runtime.js";
import { createTackleApp, createTackleServer, WEBHOOK_PATH, type TackleApp } from "../../../src/main/server.js";
import type { ProcessJobDeps } from "../../../src/worker/index.js";
import type { OctokitSettings } from "../../../src/github/index.js";
import { silentLogger, type Logger } from "../../../src/logging/logger.js";
import { startFakeAnthropic, startFakeGitHub, type FakeAnthropic, type FakeGitHub, type ScriptedModel, type ScriptedTurn } from "../../fakes/index.js";

export const OWNER = "octo";
export const REPO = "widgets";

/** Where a spawned `tackle server` takes webhooks. */
export const binWebhookUrl = (port: number): string => `http://127.0.0.1:${port}${WEBHOOK_PATH}`;

/** A fresh temp directory, removed by the caller's cleanup list. */
export async function tempDirIn(cleanups: Array<() => Promise<void>>, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The example repository of the demo, as seed files for the fake GitHub. */
export async function demoRepoFiles(): Promise<Record<string, string>> {
  const root = path.resolve("examples/demo-repo");
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else files[path.relative(root, full)] = await readFile(full, "utf8");
    }
  };
  await walk(root);
  return files;
}

/** A model session that fixes the demo repository's bug the way a good agent would, through the contract's tools. */
export function fixTemperatureScript(): ScriptedTurn[] {
  return [
    {
      content: [
        { type: "tool_use", name: "GetIssue", input: {} },
        { type: "tool_use", name: "Read", input: { file_path: "src/temperature.js" } },
      ],
      stop_reason: "tool_use",
    },
    {
      content: [
        { type: "text", text: "The offset is 23; it should be 32." },
        {
          type: "tool_use",
          name: "Edit",
          input: { file_path: "src/temperature.js", old_string: "/ 5 + 23;", new_string: "/ 5 + 32;" },
        },
      ],
      stop_reason: "tool_use",
    },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "node --test 2>&1 | tail -5; env" } }], stop_reason: "tool_use" },
    {
      content: [{ type: "tool_use", name: "git_commit", input: { message: "Fix the Fahrenheit offset (32, not 23)" } }],
      stop_reason: "tool_use",
    },
    {
      content: [
        {
          type: "tool_use",
          name: "create_pull_request",
          input: { title: "Fix celsiusToFahrenheit offset", body: "The offset was 23 instead of 32." },
        },
      ],
      stop_reason: "tool_use",
    },
    {
      content: [{ type: "tool_use", name: "task_done", input: { summary: "Fixed the offset; tests pass.", files_changed: ["src/temperature.js"] } }],
      stop_reason: "tool_use",
    },
  ];
}

export interface Harness {
  gh: FakeGitHub;
  model: FakeAnthropic;
  app: TackleApp;
  home: string;
  webhookUrl: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The fake GitHub and model, a repo with the demo code and an issue, and Tackle's App mounted on our own server. */
export async function startHarness(options: {
  script: ScriptedModel;
  extraEnv?: Record<string, string>;
  /** Production Octokit settings (throttling, retries) for the rate-limit tests. @defaultValue both off */
  octokit?: OctokitSettings;
  /** With REDIS_URL in extraEnv: run the BullMQ worker in this process too. */
  withWorker?: boolean;
  queueOptions?: { lockDurationMs?: number; stalledIntervalMs?: number; concurrency?: number };
  /** How long policy questions wait. @defaultValue each repo's approval_timeout_minutes */
  approvalTimeoutMs?: number;
  /** Where the app logs (the burst bench reads the jobs' phase timings from it). @defaultValue silent */
  logger?: Logger;
}): Promise<Harness> {
  const gh = await startFakeGitHub();
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  gh.setPermission(OWNER, REPO, "alice", "write");
  const model = await startFakeAnthropic(options.script, { minCacheableTokens: 0 });
  const home = await mkdtemp(path.join(os.tmpdir(), "tackle-e2e-"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    ...gh.appEnv(),
    ...model.env(),
    TACKLE_HOME: home,
    LOG_LEVEL: "silent",
    ...(options.extraEnv ?? {}),
  };
  const app = await createTackleApp(env, {
    withWorker: options.withWorker ?? false,
    logger: options.logger ?? silentLogger,
    octokit: options.octokit ?? { throttle: false, retry: false },
    ...(options.queueOptions ? { queueOptions: options.queueOptions } : {}),
    ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
  });
  const server = createTackleServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    gh,
    model,
    app,
    home,
    env,
    webhookUrl: `http://127.0.0.1:${port}${WEBHOOK_PATH}`,
    async close() {
      await app.close(1000);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await model.close();
      await gh.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** One job run through processJob directly: the fakes, the runtime's deps and the job's data. */
export interface JobWorld {
  gh: FakeGitHub;
  model: FakeAnthropic;
  deps: ProcessJobDeps;
  data: JobData;
  close(): Promise<void>;
}

/**
 * The fake GitHub with the demo repository (plus `files`) and one issue, the fake model serving
 * `script`, and processJob's deps from the real runtime, for tests of the job path without webhooks.
 */
export async function startJobWorld(
  script: ScriptedModel,
  options: { files?: Record<string, string>; title?: string; modelRetries?: number } = {},
): Promise<JobWorld> {
  const gh = await startFakeGitHub();
  await gh.addRepo({ owner: OWNER, name: REPO, files: { ...(await demoRepoFiles()), ...(options.files ?? {}) } });
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: options.title ?? "celsiusToFahrenheit(100) returns 203" });
  const model = await startFakeAnthropic(script, { minCacheableTokens: 0 });
  const home = await mkdtemp(path.join(os.tmpdir(), "tackle-job-"));
  const runtime = await createJobRuntime(
    { ...gh.appEnv(), ...model.env(), TACKLE_HOME: home, PATH: process.env.PATH ?? "" },
    { mode: "server", logger: silentLogger, octokit: { throttle: false, retry: false } },
  );
  const retries = options.modelRetries;
  const deps: ProcessJobDeps =
    retries === undefined
      ? runtime.deps
      : { ...runtime.deps, model: () => createAnthropicClient({ apiKey: model.apiKey, baseURL: model.url, maxRetries: retries }) };
  const data: JobData = {
    jobId: `${OWNER}-${REPO}-${issue.number}-job`,
    deliveryId: `d-${issue.number}`,
    installationId: gh.installationId(OWNER),
    repo: { owner: OWNER, name: REPO },
    number: issue.number,
    isPullRequest: false,
    trigger: { kind: "issue_assigned", actor: "alice" },
    enqueuedAt: new Date().toISOString(),
  };
  return {
    gh,
    model,
    deps,
    data,
    async close() {
      await model.close();
      await gh.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
