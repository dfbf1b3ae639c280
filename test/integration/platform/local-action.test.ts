// The Action's source run by GitHub's own local runner for JavaScript actions, `@github/local-action`
// (`local-action run <action dir> <entrypoint> <dotenv file>`), against the fake GitHub and the fake
// model. It stands in for @actions/core with its own stubs, reads action.yml's inputs and defaults,
// imports the entrypoint and calls its exported `run()`, then prints the outputs it saw.
//
// Documented limits, worked around here:
// - It runs source only ("supports non-transpiled action code only"), through tsx: the entrypoint is
//   src/main/action.ts, not dist/action.js (whose own smoke runs are in test/integration/e2e/action.test.ts).
// - It ignores `runs.using` (node24 included): it runs on this machine's Node.
// - Its `core.setFailed` stub records the failure and prints `::error::` but does not set the exit code;
//   Tackle's `run()` sets `process.exitCode` itself, so the exit code below is the Action's own.
// - It finds @actions/core to stub with `npm ls` and starts tsx with `npm exec`: both are run offline
//   (`npm_config_offline`), so nothing here can reach the registry.
import { execFile } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { issueCommentCreatedPayload, startFakeAnthropic, startFakeGitHub, type FakeAnthropic, type FakeGitHub } from "../../fakes/index.js";
import { demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "../e2e/harness.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../../..");
const LOCAL_ACTION = path.join(ROOT, "node_modules/.bin/local-action");
const TOKEN = "ghs_localActionWorkflowToken000000000000";
const ACTIONS_BOT = "github-actions[bot]";
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  gh: FakeGitHub;
  model: FakeAnthropic;
  issueNumber: number;
}

async function startWorld(): Promise<World> {
  const gh = await startFakeGitHub({
    staticTokens: { [TOKEN]: { login: ACTIONS_BOT, permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" } } },
  });
  cleanups.push(() => gh.close());
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  gh.setPermission(OWNER, REPO, "alice", "write");
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203, not 212" });
  const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
  cleanups.push(() => model.close());
  return { gh, model, issueNumber: issue.number };
}

function commentEvent(world: World, body: string) {
  const comment = world.gh.addComment({ owner: OWNER, repo: REPO, issueNumber: world.issueNumber, body, user: "alice" });
  const payload = issueCommentCreatedPayload({
    ...world.gh.repoContext(OWNER, REPO),
    issueNumber: world.issueNumber,
    commentBody: body,
    commentId: comment.id,
    commenter: "alice",
  });
  delete (payload as { installation?: unknown }).installation;
  return { name: "issue_comment", payload };
}

interface LocalRun {
  code: number;
  stdout: string;
  /** What local-action printed under "Action Outputs". */
  outputs: Record<string, string>;
  summary: string;
}

/** local-action's closing table: `│ 0 │ 'status' │ 'done' │` rows, or "No outputs were set!". */
function parseOutputTable(stdout: string): Record<string, string> {
  const section = stdout.slice(stdout.lastIndexOf("Action Outputs"));
  const outputs: Record<string, string> = {};
  for (const match of section.matchAll(/│\s*\d+\s*│\s*'([^']+)'\s*│\s*'([^']*)'\s*│/g)) outputs[match[1]!] = match[2]!;
  return outputs;
}

const dotenvLine = (name: string, value: string): string => `${name}=${JSON.stringify(value)}`;

/** The step as local-action runs it: the runner's variables and the step's inputs in a dotenv file. */
async function runLocalAction(world: World, event: { name: string; payload: unknown }, inputs: Record<string, string>): Promise<LocalRun> {
  const runner = await tempDirIn(cleanups, "tackle-local-action-");
  await chmod(runner, 0o755);
  const eventPath = path.join(runner, "event.json");
  await writeFile(eventPath, JSON.stringify(event.payload));
  const summaryPath = path.join(runner, "summary.md");
  await writeFile(summaryPath, "");
  const variables: Record<string, string> = {
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    ...world.gh.actionEnv(),
    GITHUB_WORKSPACE: runner,
    RUNNER_TEMP: runner,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_RUN_ID: "777",
    GITHUB_RUN_ATTEMPT: "1",
    ANTHROPIC_BASE_URL: world.model.url,
    LOG_LEVEL: "warn",
    ...inputs,
  };
  const dotenv = path.join(runner, "step.env");
  await writeFile(
    dotenv,
    `${Object.entries(variables)
      .map(([name, value]) => dotenvLine(name, value))
      .join("\n")}\n`,
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: runner,
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    // local-action shells out to npm (`npm ls`, `npm exec tsx`): never let that reach a registry.
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_cache: path.join(runner, "npm-cache"),
  };
  let code = 0;
  let stdout: string;
  try {
    ({ stdout } = await run(LOCAL_ACTION, ["run", ROOT, "src/main/action.ts", dotenv], { cwd: ROOT, env, timeout: 170_000, maxBuffer: 64 * 1024 * 1024 }));
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    code = typeof e.code === "number" ? e.code : -1;
    stdout = `${e.stdout ?? ""}${e.stderr ?? ""}`;
  }
  return { code, stdout, outputs: parseOutputTable(stdout), summary: await readFile(summaryPath, "utf8") };
}

/** What local-action printed between "Running Action" and "Action Outputs": the step's own log. */
const stepLog = (stdout: string): string[] =>
  stdout
    .slice(stdout.indexOf("Running Action"), stdout.lastIndexOf("Action Outputs"))
    .split("\n")
    .filter((line) => line.startsWith("::"));

// tsx compiles the sources on the fly for each run: slower than the bundle, so a longer bound.
describe("the Action under @github/local-action", { timeout: 180_000 }, () => {
  it("an event that is not a trigger: one info line, no outputs, exit 0", async () => {
    const world = await startWorld();
    const result = await runLocalAction(
      world,
      { name: "push", payload: { ref: "refs/heads/main" } },
      { INPUT_GITHUB_TOKEN: TOKEN, INPUT_ANTHROPIC_API_KEY: world.model.apiKey },
    );
    expect(result.code, result.stdout).toBe(0);
    expect(stepLog(result.stdout)).toEqual(["::info::tackle: nothing to do: `push` events do not trigger"]);
    expect(result.stdout).toContain("No outputs were set!");
    expect(result.summary).toBe("");
  });

  it("a mention by a writer: a draft PR against the fake GitHub; outputs, step summary and exit 0", async () => {
    const world = await startWorld();
    const result = await runLocalAction(world, commentEvent(world, "@tackle fix it"), {
      INPUT_GITHUB_TOKEN: TOKEN,
      INPUT_ANTHROPIC_API_KEY: world.model.apiKey,
    });
    expect(result.code, result.stdout).toBe(0);
    const pulls = world.gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    const pull = await world.gh.pullJson(OWNER, REPO, pulls[0]!.number);
    expect(pull?.head.ref).toBe(`tackle/issue-${world.issueNumber}`);
    expect(await world.gh.readFile(OWNER, REPO, `tackle/issue-${world.issueNumber}`, "src/temperature.js")).toContain("/ 5 + 32;");
    // The outputs went through core.setOutput: local-action saw them.
    expect(result.outputs).toEqual({ status: "done", pull_request_url: pull!.html_url });
    const log = stepLog(result.stdout);
    expect(log).toContain(`::group::Tackle: working on ${OWNER}/${REPO}#${world.issueNumber}`);
    expect(log.filter((line) => line.startsWith("::error"))).toEqual([]);
    expect(result.summary).toContain("## ✅ Tackle finished");
    expect(result.summary).toContain(pull!.html_url);
    expect(result.summary).toMatch(/\| Turns \| [1-9]\d* \|/);
    expect(result.summary).toMatch(/\| Cost \| \$\d+\.\d{4} \|/);
  });

  it("a token GitHub rejects (401): a failed step with one ::error:: naming github_token; outputs say failed; exit 1", async () => {
    const world = await startWorld();
    const result = await runLocalAction(world, commentEvent(world, "@tackle fix it"), {
      INPUT_GITHUB_TOKEN: "ghs_notATokenTheFakeGitHubKnows000000000",
      INPUT_ANTHROPIC_API_KEY: world.model.apiKey,
    });
    expect(result.code, result.stdout).toBe(1);
    const errors = stepLog(result.stdout).filter((line) => line.startsWith("::error"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^::error::GitHub rejected the token Tackle was given \(HTTP 401 .*`github_token` input/);
    expect(result.outputs).toEqual({ status: "failed", pull_request_url: "" });
    expect(result.summary).toContain("## ❌ Tackle could not run");
    expect(world.model.requests).toHaveLength(0);
  });
});
