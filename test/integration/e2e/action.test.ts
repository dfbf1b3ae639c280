// The committed Action bundle, run the way a runner runs `action.yml`: `node dist/action.js` from the
// action's own checkout (no node_modules next to it), with only the Actions contract's environment.
import { execFile } from "node:child_process";
import { copyFile, symlink, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  issueCommentCreatedPayload,
  issuesLabeledPayload,
  startFakeAnthropic,
  startFakeGitHub,
  type FakeAnthropic,
  type FakeGitHub,
} from "../../fakes/index.js";
import { demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "./harness.js";

const run = promisify(execFile);
const ACTION = path.resolve("dist/action.js");
const TOKEN = "ghs_actionWorkflowToken0000000000000000";
const ACTIONS_BOT = "github-actions[bot]";
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

async function startWorld(): Promise<World> {
  const gh = await startFakeGitHub({
    // The workflow's GITHUB_TOKEN: acts as github-actions[bot], with the permissions action.yml asks for.
    staticTokens: { [TOKEN]: { login: ACTIONS_BOT, permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" } } },
  });
  cleanups.push(() => gh.close());
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  gh.setPermission(OWNER, REPO, "alice", "write");
  gh.setPermission(OWNER, REPO, "mallory", "read");
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203, not 212" });
  const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
  cleanups.push(() => model.close());
  return { gh, model, issueNumber: issue.number };
}

/** Runs the bundle copied into a bare "action checkout", with the runner's variables and nothing else. */
async function runAction(world: World, event: { name: string; payload: unknown }, extraEnv: Record<string, string> = {}) {
  const actionDir = await tempDir("tackle-action-checkout-");
  await copyFile(ACTION, path.join(actionDir, "action.js"));
  const runner = await tempDir("tackle-runner-");
  const eventPath = path.join(runner, "event.json");
  await writeFile(eventPath, JSON.stringify(event.payload));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: runner,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    ...world.gh.actionEnv(),
    GITHUB_WORKSPACE: runner,
    RUNNER_TEMP: runner,
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
    const { stdout, stderr } = await run(process.execPath, [path.join(actionDir, "action.js")], { env, cwd: runner, timeout: 120_000 });
    return { code: 0, stdout, stderr, runner };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", runner };
  }
}

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
  });

  it("without bubblewrap on the runner: warns, runs unsandboxed, and the tracking comment says so", async () => {
    const world = await startWorld();
    // A PATH with what the job needs and no bwrap.
    const bin = await tempDir("tackle-nobwrap-bin-");
    for (const tool of ["git", "node", "bash", "sh", "tail", "env", "rg"]) {
      const found = (await run("sh", ["-c", `command -v ${tool}`])).stdout.trim();
      await symlink(found, path.join(bin, tool));
    }
    const result = await runAction(world, commentEvent(world, "alice", "@tackle fix it"), { PATH: bin });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("bubblewrap is not available");
    const ours = world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("Tackle finished");
    expect(ours[0]!.body.toLowerCase()).toContain("without a sandbox");
    expect(await world.gh.readFile(OWNER, REPO, `tackle/issue-${world.issueNumber}`, "src/temperature.js")).toContain("/ 5 + 32;");
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
      const result = await runAction(world, event);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      // Octokit's request log may add a JSON line for the 404 of a missing .github/tackle.yml.
      const lines = result.stdout.trim().split("\n").filter((line) => !line.startsWith("{"));
      expect(lines, result.stdout).toHaveLength(1);
      expect(lines[0]).toMatch(/^tackle: nothing to do: /);
    }
    expect(world.model.requests).toHaveLength(0);
    expect(world.gh.comments(OWNER, REPO, world.issueNumber).filter((c) => c.user === ACTIONS_BOT)).toHaveLength(0);
    expect(world.gh.requests().filter((r) => r.method !== "GET")).toHaveLength(0);
  });

  it("commands that act on a running job are explained; help works; the bot's own comments never trigger", async () => {
    const world = await startWorld();
    const stop = await runAction(world, commentEvent(world, "alice", "/tackle stop"));
    expect(stop.code).toBe(0);
    const help = await runAction(world, commentEvent(world, "alice", "/tackle help"));
    expect(help.code).toBe(0);
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
});
