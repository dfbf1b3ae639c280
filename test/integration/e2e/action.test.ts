// The committed Action bundle, run the way a runner runs `action.yml`: `node dist/action.js` from the
// action's own checkout (no node_modules next to it), with only the Actions contract's environment.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { access, chmod, copyFile, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { rgPath } from "@vscode/ripgrep";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseCommand } from "../../../src/triggers/index.js";
import {
  issueCommentCreatedPayload,
  issuesLabeledPayload,
  startFakeAnthropic,
  startFakeGitHub,
  startFakeOpenAI,
  type FakeAnthropic,
  type FakeGitHub,
  type ScriptedTurn,
} from "../../fakes/index.js";
import { startFakeBedrock } from "../../fakes/fake-bedrock.js";
import { demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "./harness.js";

const run = promisify(execFile);
// TACKLE_TEST_ACTION_BUNDLE: a bundle built elsewhere (`node scripts/build.mjs --outdir DIR`), to test it before dist/ is rebuilt.
const ACTION = path.resolve(process.env.TACKLE_TEST_ACTION_BUNDLE ?? "dist/action.js");
const TOKEN = "ghs_actionWorkflowToken0000000000000000";
const NO_ISSUES_WRITE = "ghs_actionTokenIssuesRead00000000000000";
const NO_CONTENTS_WRITE = "ghs_actionTokenContentsRead000000000000";
const NO_PULLS_WRITE = "ghs_actionTokenPullsRead0000000000000000";
const REVOKED = "ghs_actionTokenNobodyKnows0000000000000";
const ACTIONS_BOT = "github-actions[bot]";
// A personal access token as `github_token`: it acts as its owner, a plain user, and GET /user says who.
const PAT = "ghp_machineUserPersonalToken000000000000";
const PAT_USER = "tackle-machine";
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(async () => {
  // `npm test` builds first; fail loudly rather than test a missing bundle.
  await readFile(ACTION);
});

const tempDir = (prefix: string): Promise<string> => tempDirIn(cleanups, prefix);

interface World {
  gh: FakeGitHub;
  model: FakeAnthropic;
  issueNumber: number;
}

async function startWorld(script: ScriptedTurn[] = fixTemperatureScript()): Promise<World> {
  const gh = await startFakeGitHub({
    staticTokens: {
      // The workflow's GITHUB_TOKEN: acts as github-actions[bot], with the permissions the README's workflow grants.
      [TOKEN]: { login: ACTIONS_BOT, permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" } },
      // A workflow whose `permissions:` block forgot one of them.
      [NO_ISSUES_WRITE]: { login: ACTIONS_BOT, permissions: { contents: "write", issues: "read", pull_requests: "write", metadata: "read" } },
      [NO_CONTENTS_WRITE]: { login: ACTIONS_BOT, permissions: { contents: "read", issues: "write", pull_requests: "write", metadata: "read" } },
      [NO_PULLS_WRITE]: { login: ACTIONS_BOT, permissions: { contents: "write", issues: "write", pull_requests: "read", metadata: "read" } },
      [PAT]: { login: PAT_USER, permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" } },
    },
  });
  cleanups.push(() => gh.close());
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  gh.setPermission(OWNER, REPO, "alice", "write");
  gh.setPermission(OWNER, REPO, "mallory", "read");
  gh.setPermission(OWNER, REPO, PAT_USER, "write");
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203, not 212" });
  const model = await startFakeAnthropic(script, { minCacheableTokens: 0 });
  cleanups.push(() => model.close());
  return { gh, model, issueNumber: issue.number };
}

/** Runs the bundle copied into a bare "action checkout", with the runner's variables and nothing else. */
async function runAction(world: World, event: { name: string; payload: unknown }, extraEnv: Record<string, string> = {}, view: readonly string[] = []) {
  const actionDir = await tempDir("tackle-action-checkout-");
  await copyFile(ACTION, path.join(actionDir, "action.js"));
  const runner = await tempDir("tackle-runner-");
  // World-searchable, as a runner's temp directory is: as root, unsandboxed commands run as 65534.
  await chmod(runner, 0o755);
  const eventPath = path.join(runner, "event.json");
  await writeFile(eventPath, JSON.stringify(event.payload));
  // The runner creates the file-command files before the step starts; @actions/core refuses missing ones.
  await writeFile(path.join(runner, "summary.md"), "");
  await writeFile(path.join(runner, "output.txt"), "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: runner,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    ...world.gh.actionEnv(),
    GITHUB_WORKSPACE: runner,
    RUNNER_TEMP: runner,
    GITHUB_STEP_SUMMARY: path.join(runner, "summary.md"),
    GITHUB_OUTPUT: path.join(runner, "output.txt"),
    GITHUB_RUN_ID: "4242",
    GITHUB_RUN_ATTEMPT: "1",
    INPUT_GITHUB_TOKEN: TOKEN,
    INPUT_ANTHROPIC_API_KEY: world.model.apiKey,
    INPUT_MODEL: "",
    ANTHROPIC_BASE_URL: world.model.url,
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  try {
    const [file = process.execPath, ...args] = [...view, process.execPath, path.join(actionDir, "action.js")];
    const { stdout, stderr } = await run(file, args, { env, cwd: runner, timeout: 120_000 });
    return { code: 0, stdout, stderr, runner };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", runner };
  }
}

/**
 * A PATH with what a job needs: git, node and the shell tools from this machine, ripgrep from
 * node_modules (a clean machine has no `rg` on PATH).
 */
async function pathWithoutBwrap(): Promise<{ bin: string; sudoCalls(): Promise<string[]>; view: string[] }> {
  const bin = await tempDir("tackle-nobwrap-bin-");
  for (const tool of ["git", "node", "bash", "sh", "tail", "env"]) {
    const found = (await run("sh", ["-c", `command -v ${tool}`])).stdout.trim();
    await symlink(found, path.join(bin, tool));
  }
  await symlink(rgPath, path.join(bin, "rg"));
  const { view, sudoCalls } = await hostView({ hideBwrap: true });
  return { bin, sudoCalls, view };
}

const SYSTEM_BWRAP = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/sbin/bwrap", "/sbin/bwrap"].find((file) => existsSync(file));

/**
 * How the Action sees the machine: Tackle starts its helpers (bubblewrap, sudo) only from the system
 * directories, never from PATH, so a runner without bubblewrap is shown by hiding the system's
 * (/dev/null over it) in a mount namespace of the Action's own, and sudo is one that records its
 * arguments and fails, so a set-up attempt shows without touching the machine or the network.
 * The namespace is made with bubblewrap itself (as root: root's mount namespace; otherwise a user
 * namespace mapping the same uid), with the whole host bound in it.
 */
async function hostView(options: { hideBwrap: boolean }): Promise<{ view: string[]; sudoCalls(): Promise<string[]> }> {
  const dir = await tempDir("tackle-host-view-");
  const record = path.join(dir, "sudo-calls.txt");
  const sbin = path.join(dir, "sbin");
  // /usr/sbin as it is (the original bound at .orig, linked to) plus the recording sudo, bound over
  // /usr/sbin, the first directory Tackle looks in.
  const orig = path.join(sbin, ".orig");
  await mkdir(orig, { recursive: true });
  for (const name of await readdir("/usr/sbin")) await symlink(path.join(orig, name), path.join(sbin, name));
  await rm(path.join(sbin, "sudo"), { force: true });
  await writeFile(path.join(sbin, "sudo"), `#!/bin/sh\necho "$*" >> '${record}'\necho "sudo: a password is required" >&2\nexit 1\n`, { mode: 0o755 });
  if (SYSTEM_BWRAP === undefined) throw new Error("these tests make the Action's view of the machine with bubblewrap");
  const view = [SYSTEM_BWRAP, "--dev-bind", "/", "/", "--ro-bind", "/usr/sbin", orig, "--ro-bind", sbin, "/usr/sbin"];
  if (options.hideBwrap) view.push("--ro-bind", "/dev/null", SYSTEM_BWRAP);
  view.push("--die-with-parent", "--");
  const sudoCalls = async () => (await readFile(record, "utf8").catch(() => "")).split("\n").filter(Boolean);
  return { view, sudoCalls };
}

/**
 * This machine's PATH without the directories that hold an `rg` (.ci/run puts @vscode/ripgrep's first),
 * so that a test decides where ripgrep is. /usr/bin and /bin stay: the search's own PATH is those two.
 */
async function pathWithoutRipgrep(): Promise<string> {
  const kept: string[] = [];
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(path.delimiter)) {
    const hasRg = await access(path.join(dir, "rg")).then(
      () => true,
      () => false,
    );
    if (!hasRg || dir === "/usr/bin" || dir === "/bin") kept.push(dir);
  }
  return kept.join(path.delimiter);
}
const systemHasRipgrep = existsSync("/usr/bin/rg") || existsSync("/bin/rg");

/** A session that searches with Grep and Glob, then ends without changes. */
const searchScript = (): ScriptedTurn[] => [
  {
    content: [
      { type: "tool_use", name: "Grep", input: { pattern: String.raw`/ 5 \+ 23;`, output_mode: "content" } },
      { type: "tool_use", name: "Glob", input: { pattern: "**/*.test.js" } },
    ],
    stop_reason: "tool_use",
  },
  { content: [{ type: "tool_use", name: "task_done", input: { summary: "Searched; nothing to change." } }], stop_reason: "tool_use" },
];

/** The tool results the model got back for its first turn's calls, in call order. */
function firstToolResults(model: FakeAnthropic): Array<{ content: string; isError: boolean }> {
  const messages = (model.requests[1]?.body.messages ?? []) as Array<{ content: unknown }>;
  const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; content?: unknown; is_error?: boolean }>) : []));
  return blocks
    .filter((b) => b.type === "tool_result")
    .map((b) => ({ content: typeof b.content === "string" ? b.content : JSON.stringify(b.content), isError: b.is_error === true }));
}

/** The bodies of the comments the Action posted as `login`, leaving out the events' own comments. */
const repliesBy = (world: World, login: string, eventBodies: string[]): string[] =>
  world.gh
    .comments(OWNER, REPO, world.issueNumber)
    .filter((c) => c.user === login && !eventBodies.includes(c.body))
    .map((c) => c.body);

const readRunnerFile = (runner: string, name: string): Promise<string> => readFile(path.join(runner, name), "utf8").catch(() => "");

/** The step's outputs, from GITHUB_OUTPUT in the runner's file-command format (`name<<DELIMITER`, value lines, `DELIMITER`). */
async function readOutputs(runner: string): Promise<Record<string, string>> {
  const lines = (await readRunnerFile(runner, "output.txt")).split("\n");
  const outputs: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (!heredoc) continue;
    const end = lines.indexOf(heredoc[2]!, i + 1);
    outputs[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
    i = end;
  }
  return outputs;
}

/** `::error::` annotations, as the runner reads them from the step's stdout. */
const errorAnnotations = (stdout: string): string[] => stdout.split("\n").filter((line) => line.startsWith("::error"));

function commentEvent(world: World, commenter: string, body: string) {
  const comment = world.gh.addComment({ owner: OWNER, repo: REPO, issueNumber: world.issueNumber, body, user: commenter });
  const payload = issueCommentCreatedPayload({
    ...world.gh.repoContext(OWNER, REPO),
    issueNumber: world.issueNumber,
    commentBody: body,
    commentId: comment.id,
    commenter,
  });
  // An Actions event carries no installation.
  delete (payload as { installation?: unknown }).installation;
  return { name: "issue_comment", payload, commentId: comment.id };
}

describe("GitHub Action (dist/action.js)", () => {
  it("an @tackle comment by a writer: 👀, one tracking comment, a draft PR from tackle/issue-N with the fix; exit 0", async () => {
    const world = await startWorld();
    const event = commentEvent(world, "alice", "@tackle fix it");
    const result = await runAction(world, event);
    expect(result.stderr).not.toMatch(/tackle: (?!warning)/);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/tackle: done: .*\/pull\/\d+/);

    const { gh } = world;
    const pulls = gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    const pull = await gh.pullJson(OWNER, REPO, pulls[0]!.number);
    expect(pull?.draft).toBe(true);
    expect(pull?.head.ref).toBe(`tackle/issue-${world.issueNumber}`);
    expect(pull?.body).toContain(`Fixes #${world.issueNumber}`);
    expect(await gh.readFile(OWNER, REPO, `tackle/issue-${world.issueNumber}`, "src/temperature.js")).toContain("/ 5 + 32;");

    const reactions = gh.reactions(OWNER, REPO, { commentId: event.commentId });
    expect(reactions.map((r) => [r.content, r.user])).toEqual([["eyes", ACTIONS_BOT]]);
    const ours = gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("Tackle finished");
    expect(ours[0]!.body).toContain(pull!.html_url);
    // Neither key reaches GitHub.
    expect(JSON.stringify(gh.comments(OWNER, REPO, world.issueNumber))).not.toContain(world.model.apiKey);
    expect(JSON.stringify(gh.comments(OWNER, REPO, world.issueNumber))).not.toContain(TOKEN);
    // The repo cache lives under RUNNER_TEMP/tackle.
    expect(await readdir(path.join(result.runner, "tackle", "transcripts"))).toHaveLength(1);
    // The log and the step summary say how commands were boxed.
    expect(result.stdout).toContain("tackle: Agent commands run in the bubblewrap sandbox");
    // The job's log is folded into one group; no annotation on success.
    expect(result.stdout).toMatch(/^::group::Tackle: working on octo\/widgets#\d+$/m);
    expect(result.stdout).toMatch(/^::endgroup::$/m);
    expect(errorAnnotations(result.stdout)).toEqual([]);
    expect(await readOutputs(result.runner)).toEqual({ status: "done", pull_request_url: pull!.html_url });
    const summary = await readRunnerFile(result.runner, "summary.md");
    expect(summary).toContain("## ✅ Tackle finished");
    expect(summary).toContain(`| Pull request | [${pull!.html_url}](${pull!.html_url}) |`);
    expect(summary).toMatch(/\| Turns \| [1-9]\d* \|/);
    expect(summary).toMatch(/\| Tokens \| [1-9]\d* input \(\d+ from cache\) · [1-9]\d* output \|/);
    expect(summary).toMatch(/\| Cost \| \$\d+\.\d{4} \|/);
    expect(summary).toContain("bubblewrap sandbox");
    // The summary's turns are the tracking comment's.
    const turns = /(\d+) turns/.exec(ours[0]!.body)?.[1];
    expect(summary).toContain(`| Turns | ${turns} |`);
  });

  it("UploadArtifact writes to $RUNNER_TEMP/tackle-artifacts, masked, and the step summary lists it", async () => {
    const act = (name: string, input: unknown): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], stop_reason: "tool_use" });
    const world = await startWorld([
      // The model key (the fake's default), which the step must never publish.
      act("Write", { file_path: "report.txt", content: "the findings, key sk-ant-fake-key\n" }),
      act("UploadArtifact", { file_path: "report.txt", description: "what was found" }),
      act("task_done", { summary: "Reported." }),
    ]);
    const result = await runAction(world, commentEvent(world, "alice", "@tackle report"));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await readdir(path.join(result.runner, "tackle-artifacts"))).toEqual(["a1-report.txt"]);
    expect(await readFile(path.join(result.runner, "tackle-artifacts", "a1-report.txt"), "utf8")).toBe("the findings, key [REDACTED]\n");
    const summary = await readRunnerFile(result.runner, "summary.md");
    expect(summary).toContain("### Artifacts");
    expect(summary).toContain("- `a1-report.txt` (29 bytes): what was found");
    const tracking = world.gh.comments(OWNER, REPO, world.issueNumber).find((c) => c.user === ACTIONS_BOT)!.body;
    expect(tracking).toContain("Artifacts:\n- `report.txt (a1)`: what was found");
  });

  it("without bubblewrap on the runner: refuses with an error naming allow_unsandboxed; no model request, no push; exit 1", async () => {
    const world = await startWorld();
    const { bin, sudoCalls, view } = await pathWithoutBwrap();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { PATH: bin }, view);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^::error::Tackle refused to run: bubblewrap is not available .*`allow_unsandboxed: true`/m);
    // Not a GitHub-hosted runner: no attempt to set anything up.
    expect(await sudoCalls()).toEqual([]);
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(await world.gh.branchSha(OWNER, REPO, `tackle/issue-${world.issueNumber}`)).toBeUndefined();
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("Tackle did not run");
    expect(ours[0]!.body).toContain("`allow_unsandboxed: true`");
    expect(await readRunnerFile(result.runner, "summary.md")).toContain("Tackle refused to run");
    expect(await readOutputs(result.runner)).toEqual({ status: "failed", pull_request_url: "" });
    expect(errorAnnotations(result.stdout)).toHaveLength(1);
  });

  it("on a GitHub-hosted runner without bubblewrap: tries to set it up with sudo -n, logs it, and refuses when that fails", async () => {
    const world = await startWorld();
    const { bin, sudoCalls, view } = await pathWithoutBwrap();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { PATH: bin, RUNNER_ENVIRONMENT: "github-hosted" }, view);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(await sudoCalls()).toEqual(["-n apt-get install -y bubblewrap", "-n apt-get update"]);
    expect(result.stdout).toContain("tackle: setting up the sandbox: sudo -n apt-get install -y bubblewrap");
    expect(result.stdout).toContain("sudo -n apt-get install -y bubblewrap failed (1): sudo: a password is required");
    expect(result.stdout).toMatch(/^::error::Tackle refused to run: .* and could not be set up\./m);
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(await readRunnerFile(result.runner, "summary.md")).toContain("could not be set up");
  });

  it("without bubblewrap and with allow_unsandboxed: true: warns, runs unsandboxed, and the tracking comment says so", async () => {
    const world = await startWorld();
    const { bin, sudoCalls, view } = await pathWithoutBwrap();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { PATH: bin, INPUT_ALLOW_UNSANDBOXED: "true" }, view);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^::warning::bubblewrap is not available .*agent commands run WITHOUT a sandbox/m);
    expect(await sudoCalls()).toEqual([]);
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("Tackle finished");
    expect(ours[0]!.body.toLowerCase()).toContain("without a sandbox");
    expect(await world.gh.readFile(OWNER, REPO, `tackle/issue-${world.issueNumber}`, "src/temperature.js")).toContain("/ 5 + 32;");
    expect(await readRunnerFile(result.runner, "summary.md")).toContain("WITHOUT a sandbox");
  });

  it("action.yml parses, and declares allow_unsandboxed defaulting to false", async () => {
    const action = parseYaml(await readFile("action.yml", "utf8")) as { inputs: Record<string, { default?: string; required?: boolean }> };
    expect(action.inputs.allow_unsandboxed).toMatchObject({ required: false, default: "false" });
    for (const name of ["anthropic_api_key", "github_token", "model"]) expect(action.inputs).toHaveProperty(name);
  });

  it("a comment by a read-only user: the gate's one reply, no model request, no push; exit 0", async () => {
    const world = await startWorld();
    const event = commentEvent(world, "mallory", "@tackle fix it");
    const result = await runAction(world, event);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("tackle: refused");
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect(await world.gh.branchSha(OWNER, REPO, `tackle/issue-${world.issueNumber}`)).toBeUndefined();
    expect(world.gh.reactions(OWNER, REPO, { commentId: event.commentId })).toHaveLength(0);
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours.map((c) => c.body)).toEqual(["@mallory, only users with write access can ask Tackle to work here."]);
  });

  it("an event that is not a trigger: one log line, nothing posted, no model request; exit 0", async () => {
    const world = await startWorld();
    world.gh.clearLog();
    const plain = commentEvent(world, "alice", "Thanks, looks good to me.");
    const other = issuesLabeledPayload({ ...world.gh.repoContext(OWNER, REPO), issueNumber: world.issueNumber, label: "bug" });
    for (const event of [plain, { name: "issues", payload: other }, { name: "push", payload: { ref: "refs/heads/main" } }]) {
      // At the default log level, as in a workflow.
      const result = await runAction(world, event, { LOG_LEVEL: "" });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const lines = result.stdout.trim().split("\n");
      expect(lines, result.stdout).toHaveLength(1);
      expect(lines[0]).toMatch(/^tackle: nothing to do: /);
      expect(result.stderr).toBe("");
      // No outputs and no summary: nothing happened.
      expect(await readOutputs(result.runner)).toEqual({});
      expect(await readRunnerFile(result.runner, "summary.md")).toBe("");
    }
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT)).toHaveLength(0);
    expect(world.gh.requests().filter((r) => r.method !== "GET")).toHaveLength(0);
  });

  it("commands that act on a running job are explained; help works; the bot's own comments never trigger", async () => {
    const world = await startWorld();
    const stop = await runAction(world, commentEvent(world, "alice", "/tackle stop"));
    expect(stop.code).toBe(0);
    // What GitHub answers GET /user for the workflow's own (installation) token.
    world.gh.failNext({
      status: 403,
      match: { method: "GET", pathRegex: /\/user$/ },
      body: {
        message: "Resource not accessible by integration",
        documentation_url: "https://docs.github.com/rest/users/users#get-the-authenticated-user",
        status: "403",
      },
    });
    const help = await runAction(world, commentEvent(world, "alice", "/tackle help"));
    expect(help.code).toBe(0);
    expect(world.gh.requests().filter((r) => r.method === "GET" && r.path.endsWith("/user") && r.status === 403)).toHaveLength(1);
    const own = await runAction(world, commentEvent(world, ACTIONS_BOT, "@tackle fix it"));
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^tackle: nothing to do: the bot's own event/);
    const replies = world.gh
      .comments(OWNER, REPO, world.issueNumber)
      .filter((c) => c.user === ACTIONS_BOT && !c.body.startsWith("@tackle"))
      .map((c) => c.body);
    expect(replies).toHaveLength(2);
    expect(replies[0]).toContain("Cancel that run from the Actions tab");
    expect(replies[1]).toContain("**tackle commands**");
    expect(world.model.requests).toHaveLength(0);
  });

  it("no reply of the Action invokes it: each mention and command in them is code, which the trigger parser skips", async () => {
    const world = await startWorld();
    const events = ["/tackle stop", "/tackle retry", "/tackle approve", "/tackle deny", "/tackle help", "/tackle frobnicate"];
    for (const body of events) {
      const result = await runAction(world, commentEvent(world, "alice", body));
      expect(result.code, result.stdout + result.stderr).toBe(0);
    }
    const replies = repliesBy(world, ACTIONS_BOT, events);
    expect(replies).toHaveLength(events.length);
    // The retry, approve and deny replies tell people to mention the bot again: as code.
    expect(replies.filter((reply) => reply.includes("mention `@tackle` again") || reply.includes("Mention `@tackle` again"))).toHaveLength(3);
    for (const reply of replies) expect(parseCommand(reply, "tackle"), reply).toEqual({ kind: "none" });
    expect(world.model.requests).toHaveLength(0);
  });

  it("with a personal access token: the token's user's events are the bot's own; one line, nothing posted, nothing run; exit 0", async () => {
    const world = await startWorld();
    // A writer's command still works, and the reply is posted as the token's user.
    const retry = await runAction(world, commentEvent(world, "alice", "/tackle retry"), { INPUT_GITHUB_TOKEN: PAT });
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    const [reply] = repliesBy(world, PAT_USER, []);
    expect(reply).toContain("Re-run the workflow");
    expect(parseCommand(reply!, "tackle")).toEqual({ kind: "none" });

    // A comment by the token's user that does mention the bot (the agent's ReportToIssue may write anything).
    world.gh.clearLog();
    const before = world.gh.comments(OWNER, REPO, world.issueNumber).length;
    const own = await runAction(world, commentEvent(world, PAT_USER, "Done. @tackle fix the next one too"), { INPUT_GITHUB_TOKEN: PAT, LOG_LEVEL: "" });
    expect(own.code, own.stdout + own.stderr).toBe(0);
    const lines = own.stdout.trim().split("\n");
    expect(lines, own.stdout).toHaveLength(1);
    expect(lines[0]).toMatch(/^tackle: nothing to do: the bot's own event \(tackle-machine is the user the `github_token` input acts as\)$/);
    expect(own.stderr).toBe("");
    expect(world.gh.requests().filter((r) => r.method === "GET" && r.path.endsWith("/user"))).toHaveLength(1);
    expect(world.gh.requests().filter((r) => r.method !== "GET")).toEqual([]);
    expect(world.gh.comments(OWNER, REPO, world.issueNumber)).toHaveLength(before + 1);
    expect(world.model.requests).toHaveLength(0);
    expect(await readOutputs(own.runner)).toEqual({});
  });

  it("Grep and Glob work with an `rg` that is on the step's PATH but not in /usr/bin or /bin", async () => {
    const world = await startWorld(searchScript());
    const bin = await tempDir("tackle-rg-bin-");
    await symlink(rgPath, path.join(bin, "rg"));
    const result = await runAction(world, commentEvent(world, "alice", "@tackle look around"), {
      PATH: [bin, await pathWithoutRipgrep()].join(path.delimiter),
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const [grep, glob] = firstToolResults(world.model);
    expect(grep, JSON.stringify(grep)).toMatchObject({ isError: false });
    expect(grep!.content).toContain("src/temperature.js:3:  return (celsius * 9) / 5 + 23;");
    expect(glob, JSON.stringify(glob)).toMatchObject({ isError: false });
    expect(glob!.content).toContain("test/temperature.test.js");
    expect(result.stdout).not.toMatch(/^::warning::.*ripgrep/m);
  });

  it("on a GitHub-hosted runner without ripgrep and without sudo: one ::warning::, and Grep answers that ripgrep is missing", async () => {
    // Never skipped (CI fails on a skip): the machine must be like such a runner.
    expect(systemHasRipgrep, "this test needs a machine without /usr/bin/rg, as GitHub's Ubuntu runners are").toBe(false);
    const world = await startWorld(searchScript());
    const { view, sudoCalls } = await hostView({ hideBwrap: false });
    const result = await runAction(
      world,
      commentEvent(world, "alice", "@tackle look around"),
      { PATH: await pathWithoutRipgrep(), RUNNER_ENVIRONMENT: "github-hosted" },
      view,
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // bubblewrap works here, so the only sudo call is the check before installing ripgrep; no apt-get without it.
    expect(await sudoCalls()).toEqual(["-n true"]);
    const warnings = result.stdout.split("\n").filter((line) => line.startsWith("::warning"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^::warning::ripgrep \(`rg`\) is not installed on this runner and could not be installed, so the agent's Grep and Glob tools/);
    const [grep, glob] = firstToolResults(world.model);
    for (const answer of [grep, glob]) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ isError: true });
      expect(answer!.content).toMatch(/^ripgrep is not installed on this machine \(no \/usr\/bin\/rg\), so Grep and Glob cannot search here; use Bash instead/);
      expect(answer!.content).not.toContain("ENOENT");
    }
  });
  it("a workflow token GitHub rejects (401): the step fails with an ::error:: naming github_token; nothing posted, no model request", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { INPUT_GITHUB_TOKEN: REVOKED });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const errors = errorAnnotations(result.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^::error::GitHub rejected the token Tackle was given \(HTTP 401 when trying to .*\)\. Check the Tackle step's `github_token` input/,
    );
    expect(result.stdout).not.toContain("tackle: refused");
    expect(await readOutputs(result.runner)).toEqual({ status: "failed", pull_request_url: "" });
    expect(await readRunnerFile(result.runner, "summary.md")).toContain("## ❌ Tackle could not run");
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT)).toHaveLength(0);
  });

  it("a token without issues: write: the job stops at the first refused write, before the model; the step fails naming that permission", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { INPUT_GITHUB_TOKEN: NO_ISSUES_WRITE });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const errors = errorAnnotations(result.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^::error::The workflow's token may not .* \(HTTP 403: Resource not accessible by integration\); it needs `issues: write`\./);
    expect(errors[0]).toContain("`contents: write`, `issues: write`, `pull-requests: write`");
    expect(world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT)).toHaveLength(0);
    // Stopped at the 👀 reaction: nothing was paid for or published.
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.pulls(OWNER, REPO)).toHaveLength(0);
    expect((await readOutputs(result.runner)).status).toBe("failed");
    expect(await readRunnerFile(result.runner, "summary.md")).toContain("## ❌ Tackle failed");
  });

  it("a token without contents: write: refused before the model is asked, naming contents: write, with one reply on the issue", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { INPUT_GITHUB_TOKEN: NO_CONTENTS_WRITE });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const errors = errorAnnotations(result.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^::error::The workflow's token may not push to the repository \(HTTP 403: .*\); it needs `contents: write`\./);
    expect(world.model.requests).toHaveLength(0);
    expect(await world.gh.branchSha(OWNER, REPO, `tackle/issue-${world.issueNumber}`)).toBeUndefined();
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours.map((c) => c.body)).toEqual([expect.stringContaining("cannot push to the repository")]);
  });

  it("a token without pull-requests: write: the work is pushed, but the step fails naming that permission and the repository setting", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { INPUT_GITHUB_TOKEN: NO_PULLS_WRITE });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const errors = errorAnnotations(result.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^::error::The workflow's token may not open the pull request \(HTTP 403: .*\); it needs `pull-requests: write`\./);
    expect(errors[0]).toContain("Allow GitHub Actions to create and approve pull requests");
    expect(world.gh.pulls(OWNER, REPO)).toHaveLength(0);
    // The branch holds the work, and the tracking comment says what happened.
    expect(await world.gh.readFile(OWNER, REPO, `tackle/issue-${world.issueNumber}`, "src/temperature.js")).toContain("/ 5 + 32;");
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).not.toContain("Tackle finished");
    expect((await readOutputs(result.runner)).pull_request_url).toBe("");
  });

  it("no Anthropic key: the step fails with an ::error:: saying how to pass it, and the issue is told; a non-trigger event still passes", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { INPUT_ANTHROPIC_API_KEY: "" });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const errors = errorAnnotations(result.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("The Anthropic API key is missing: set `anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}`");
    expect(world.model.requests).toHaveLength(0);
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours.map((c) => c.body)).toEqual([expect.stringContaining("has no Anthropic API key")]);
    // A fork's pull request run has no secrets either; events that are not triggers must not fail for it.
    const plain = await runAction(world, commentEvent(world, "alice", "Thanks!"), { INPUT_ANTHROPIC_API_KEY: "" });
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
  });

  it("TACKLE_PROVIDER=openai in the step's env: the job runs against the OpenAI-compatible server without anthropic_api_key", async () => {
    const world = await startWorld([]);
    const openai = await startFakeOpenAI(fixTemperatureScript(), { apiKey: "sk-openai-action-canary-77", minCacheableTokens: 0 });
    cleanups.push(() => openai.close());
    const providerEnv = { INPUT_ANTHROPIC_API_KEY: "", ...openai.env(), TACKLE_MODEL: "fake-coder" };
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), providerEnv);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(world.model.requests).toHaveLength(0);
    expect(openai.requests.length).toBe(fixTemperatureScript().length);
    expect(openai.requests.every((r) => r.status === 200)).toBe(true);
    expect(await world.gh.readFile(OWNER, REPO, `tackle/issue-${world.issueNumber}`, "src/temperature.js")).toContain("/ 5 + 32;");
    // The runner masks the key in its log; no comment carries it.
    expect(result.stdout).toContain("::add-mask::sk-openai-action-canary-77");
    expect(JSON.stringify(world.gh.comments(OWNER, REPO, world.issueNumber))).not.toContain("sk-openai-action-canary-77");

    // Without the server's URL the step fails before any model request, saying which variable is missing.
    const missing = await runAction(world, commentEvent(world, "alice", "@tackle again"), { ...providerEnv, OPENAI_BASE_URL: "" });
    expect(missing.code, missing.stdout + missing.stderr).toBe(1);
    const missingErrors = errorAnnotations(missing.stdout).join("\n");
    expect(missingErrors).toContain("TACKLE_PROVIDER=openai is not set up:");
    expect(missingErrors).toContain("`OPENAI_BASE_URL`: required to run jobs with TACKLE_PROVIDER=openai");
    expect(openai.requests.length).toBe(fixTemperatureScript().length);
  });

  it("a malformed allow_unsandboxed input fails the step naming the input", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { INPUT_ALLOW_UNSANDBOXED: "yes" });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(errorAnnotations(result.stdout)).toEqual(["::error::Tackle: the `allow_unsandboxed` input must be true or false, not 'yes'"]);
    expect(world.model.requests).toHaveLength(0);
  });

  it("TACKLE_PROVIDER=bedrock with the AWS keys a credentials step exports: no Anthropic key, signed requests, the keys masked; exit 0", async () => {
    const world = await startWorld([]);
    const bedrock = await startFakeBedrock(fixTemperatureScript());
    cleanups.push(() => bedrock.close());
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), {
      ...bedrock.env(),
      INPUT_ANTHROPIC_API_KEY: "",
      ANTHROPIC_BASE_URL: "",
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(world.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(bedrock.requests.length).toBe(fixTemperatureScript().length);
    expect(bedrock.requests.every((r) => r.signature.ok)).toBe(true);
    expect(world.model.requests).toHaveLength(0);
    // The runner masks what the step registers as secrets in every later log line.
    for (const secret of [bedrock.credentials.secretAccessKey, bedrock.credentials.sessionToken!]) expect(result.stdout).toContain(`::add-mask::${secret}`);
  });

  it("TACKLE_PROVIDER=vertex without CLOUD_ML_REGION: the step fails naming the variable and the issue is told; no model request", async () => {
    const world = await startWorld();
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { TACKLE_PROVIDER: "vertex", INPUT_ANTHROPIC_API_KEY: "" });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const errors = errorAnnotations(result.stdout);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("TACKLE_PROVIDER=vertex is not set up:");
    expect(errors[0]).toContain("`CLOUD_ML_REGION`: required with TACKLE_PROVIDER=vertex");
    expect(world.model.requests).toHaveLength(0);
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours.map((c) => c.body)).toEqual([expect.stringContaining("model provider (vertex) is not set up")]);
  });
});
