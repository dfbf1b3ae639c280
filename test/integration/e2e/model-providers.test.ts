// A job end to end (signed webhook -> PR) on each cloud provider, TACKLE_PROVIDER set and
// ANTHROPIC_API_KEY unset: the model calls tools through the real Bedrock or Vertex SDK against a
// loopback fake of that provider's API, which checks each request's SigV4 signature (Bedrock) or
// OAuth bearer token (Vertex). Nothing goes to the Anthropic API, and the provider's credentials
// never reach the model or GitHub.
import { afterEach, describe, expect, it } from "vitest";
import { startFakeBedrock, type FakeBedrock } from "../../fakes/fake-bedrock.js";
import { startFakeVertex, type FakeVertex } from "../../fakes/fake-vertex.js";
import type { ScriptedBlock, ScriptedTurn } from "../../fakes/index.js";
import { fixTemperatureScript, OWNER, REPO, startHarness, tempDirIn, type Harness } from "./harness.js";
import { assign, botComments } from "./trigger-helpers.js";

let h: Harness | undefined;
let bedrock: FakeBedrock | undefined;
let vertex: FakeVertex | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await h?.close();
  await bedrock?.close();
  await vertex?.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
  h = bedrock = vertex = undefined;
});

const AWS_KEYS = {
  accessKeyId: `${"ASIA"}TACKLEE2E0000001`,
  secretAccessKey: `e2e/secret+access/key${"9".repeat(19)}`,
  sessionToken: `e2e-session-token-${"5".repeat(30)}`,
};

/** The demo fix, with a report that quotes `leak` (the agent may write anything into a comment). */
function fixScript(leak: string): ScriptedTurn[] {
  const report: ScriptedBlock = { type: "tool_use", name: "ReportToIssue", input: { body: `Progress: offset found. Debug: ${leak}` } };
  const [first, ...rest] = fixTemperatureScript();
  return [first!, { content: [report], stop_reason: "tool_use" }, ...rest];
}

/** The job's visible result on the fake GitHub: the PR with the fix and the tracking comment's last word. */
async function expectFixedByPullRequest(harness: Harness, issueNumber: number): Promise<void> {
  const pulls = harness.gh.pulls(OWNER, REPO);
  expect(pulls).toHaveLength(1);
  expect(pulls[0]!.title).toBe("Fix celsiusToFahrenheit offset");
  const fixed = await harness.gh.readFile(OWNER, REPO, `tackle/issue-${issueNumber}`, "src/temperature.js");
  expect(fixed).toContain("/ 5 + 32;");
  const tracking = botComments(harness, issueNumber).filter((c) => c.body.includes("tackle:tracking"));
  expect(tracking).toHaveLength(1);
  expect(tracking[0]!.body).toContain("Tackle finished");
}

/** Every write to the fake GitHub, as one string. */
const writtenToGitHub = (harness: Harness): string =>
  JSON.stringify(
    harness.gh
      .requests({ kind: "rest" })
      .filter((entry) => entry.method !== "GET" && entry.body !== undefined)
      .map((entry) => entry.body),
  );

describe("model providers, end to end", () => {
  it("TACKLE_PROVIDER=bedrock: every model call is a SigV4-signed event-stream request, and the PR opens", async () => {
    const modelId = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    bedrock = await startFakeBedrock(fixScript(`${AWS_KEYS.secretAccessKey} ${AWS_KEYS.sessionToken}`), { credentials: AWS_KEYS, region: "eu-west-1" });
    h = await startHarness({ script: [], extraEnv: { ...bedrock.env(), ANTHROPIC_API_KEY: "", TACKLE_MODEL: modelId } });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });

    expect((await assign(h, issue.number)).status).toBe(200);
    await h.app.queue.idle();

    await expectFixedByPullRequest(h, issue.number);
    const turns = fixScript("").length;
    expect(bedrock.model.turnsUsed()).toBe(turns);
    expect(bedrock.requests).toHaveLength(turns);
    for (const request of bedrock.requests) {
      expect(request).toMatchObject({ modelId, stream: true, status: 200, signature: { ok: true } });
      expect(request.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_KEYS.accessKeyId}/\\d{8}/eu-west-1/bedrock/aws4_request,`));
    }
    // Tool results went back through Bedrock: the last request carries the whole conversation.
    expect(JSON.stringify(bedrock.model.requests.at(-1)!.body.messages)).toContain("tool_result");
    expect(h.model.requests).toHaveLength(0);

    // The agent's report quoted the keys: GitHub got them masked, and no tool result (`env` included) held them.
    const report = botComments(h, issue.number).find((c) => c.body.startsWith("Progress: offset found."));
    expect(report?.body).toBe("Progress: offset found. Debug: [REDACTED] [REDACTED]");
    const toolResults = JSON.stringify((bedrock.model.requests.at(-1)!.body.messages ?? []).filter((m) => (m as { role: string }).role === "user"));
    for (const secret of [AWS_KEYS.secretAccessKey, AWS_KEYS.sessionToken, AWS_KEYS.accessKeyId]) {
      expect(writtenToGitHub(h)).not.toContain(secret);
      expect(toolResults).not.toContain(secret);
    }
  });

  it("TACKLE_PROVIDER=vertex: every model call carries a token from the credentials file's exchange, and the PR opens", async () => {
    const modelId = "claude-sonnet-4-6";
    vertex = await startFakeVertex(fixScript("nothing secret here"), { project: "tackle-e2e", region: "europe-west1" });
    const dir = await tempDirIn(cleanups, "tackle-vertex-e2e-");
    const credentials = await vertex.writeCredentials(dir);
    h = await startHarness({ script: [], extraEnv: { ...vertex.env(credentials), ANTHROPIC_API_KEY: "", TACKLE_MODEL: modelId } });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });

    expect((await assign(h, issue.number)).status).toBe(200);
    await h.app.queue.idle();

    await expectFixedByPullRequest(h, issue.number);
    const turns = fixScript("").length;
    expect(vertex.model.turnsUsed()).toBe(turns);
    expect(vertex.requests).toHaveLength(turns);
    const issued = new Set(vertex.tokenExchanges.map((exchange) => exchange.issued));
    expect(issued.size).toBeGreaterThan(0);
    for (const request of vertex.requests) {
      expect(request).toMatchObject({
        path: `/v1/projects/tackle-e2e/locations/europe-west1/publishers/anthropic/models/${modelId}:streamRawPredict`,
        authorized: true,
        status: 200,
      });
      expect(issued.has(String(request.headers.authorization).replace(/^Bearer /, ""))).toBe(true);
      expect(request.body).not.toHaveProperty("model");
    }
    expect(JSON.stringify(vertex.model.requests.at(-1)!.body.messages)).toContain("tool_result");
    expect(h.model.requests).toHaveLength(0);
  });
});
