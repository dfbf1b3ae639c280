// `tackle receive`: one delivery from a file through the whole App (gate, 👀, tracking comment, job, PR)
// in the bin's own process, against the fake GitHub and the fake model.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { issuesAssignedPayload, startFakeAnthropic, startFakeGitHub, type ScriptedTurn } from "../../fakes/index.js";
import { CLI, runCli, shellEnv } from "./cli-process.js";
import { demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(async () => {
  await readFile(CLI);
});

async function world(script: ScriptedTurn[]) {
  const gh = await startFakeGitHub();
  cleanups.push(() => gh.close());
  await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
  gh.setPermission(OWNER, REPO, "alice", "write");
  const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
  const model = await startFakeAnthropic(script, { minCacheableTokens: 0 });
  cleanups.push(() => model.close());
  const home = await tempDirIn(cleanups, "tackle-receive-");
  const { WEBHOOK_SECRET: _unused, ...app } = gh.appEnv();
  // No WEBHOOK_SECRET (nothing is signed), and a REDIS_URL nothing listens on: receive runs in-process.
  const env = shellEnv(home, { ...app, ...model.env(), TACKLE_HOME: home, LOG_LEVEL: "warn", REDIS_URL: "redis://127.0.0.1:9" });
  const payloadFile = async (payload: unknown, name = "payload.json") => {
    const file = path.join(home, name);
    await writeFile(file, typeof payload === "string" ? payload : JSON.stringify(payload));
    return file;
  };
  const assigned = (assignee: string) => issuesAssignedPayload({ ...gh.repoContext(OWNER, REPO), issueNumber: issue.number, assignee, sender: "alice" });
  return { gh, model, issue, home, env, payloadFile, assigned };
}

describe("tackle receive", () => {
  it("runs an issues.assigned delivery to its draft PR and exits 0", async () => {
    const w = await world(fixTemperatureScript());
    const file = await w.payloadFile(w.assigned(w.gh.botLogin));
    const result = await runCli(["receive", "--event", "issues", "--payload", file, "--delivery-id", "receive-1"], { env: w.env });
    expect(result.stderr).not.toMatch(/tackle( receive)?: (?!warning)/);
    expect(result.code).toBe(0);
    const pulls = w.gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    expect(result.stdout).toMatch(
      new RegExp(`tackle receive: job \\S+ \\(${OWNER}/${REPO}#${w.issue.number}\\) ended done ${w.gh.url}/${OWNER}/${REPO}/pull/${pulls[0]!.number}`),
    );
    // The whole webhook side ran: 👀 on the issue, one tracking comment edited to its end.
    expect(w.gh.reactions(OWNER, REPO, { issueNumber: w.issue.number }).map((r) => r.content)).toContain("eyes");
    const tracking = w.gh.comments(OWNER, REPO, w.issue.number).filter((c) => c.user === w.gh.botLogin);
    expect(tracking).toHaveLength(1);
    expect(tracking[0]!.body).toContain("Tackle finished");
    expect(await w.gh.readFile(OWNER, REPO, `tackle/issue-${w.issue.number}`, "src/temperature.js")).toContain("/ 5 + 32;");
  });

  it("exits 1 when the job fails, 3 when the delivery starts no job", async () => {
    const w = await world([{ error: { status: 400, type: "invalid_request_error", message: "prompt is malformed" } }]);
    const failing = await runCli(["receive", "--event", "issues.assigned", "--payload", await w.payloadFile(w.assigned(w.gh.botLogin))], { env: w.env });
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/ended failed: .*prompt is malformed/);

    // Assigned to someone else: not a trigger for this App.
    const ignored = await runCli(["receive", "--event", "issues", "--payload", await w.payloadFile(w.assigned("bob"), "other.json")], { env: w.env });
    expect(ignored.code).toBe(3);
    expect(ignored.stdout).toContain("the delivery started no job");
    expect(w.model.requests).toHaveLength(1);
  });

  it("exits 2 with a clear message for an unknown event or an unusable payload file, before starting anything", async () => {
    const w = await world([]);
    const good = await w.payloadFile(w.assigned(w.gh.botLogin));
    const cases: Array<[string[], RegExp]> = [
      [["--event", "isues", "--payload", good], /"isues" is not a GitHub webhook event name/],
      [["--event", "issues", "--payload", path.join(w.home, "missing.json")], /cannot read the payload file: ENOENT/],
      [["--event", "issues", "--payload", await w.payloadFile("{ nope", "bad.json")], /bad\.json is not valid JSON/],
      [["--event", "issues", "--payload", await w.payloadFile({ action: "assigned" }, "bare.json")], /bare\.json has no installation\.id/],
      [["--event", "issues"], /--event NAME and --payload FILE are required/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(["receive", ...args], { env: w.env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(w.gh.requests()).toHaveLength(0);
  });
});
